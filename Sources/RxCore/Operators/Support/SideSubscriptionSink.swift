/// The base of a sink whose source is paired with one side subscription that may end it from
/// another thread: `take(until:)`'s trigger, `withLatestFrom`'s second sequence.
///
/// The side subscription is subscribed first (`attach(_:)` keeps it, to dispose it with the sink).
/// The source's elements and the first terminal event decided (the source's or the side's, through
/// `end(_:)`) meet on the drain loop: an element that finds no one delivering goes straight
/// downstream; one that finds a delivery in progress (the side's terminal event on another thread,
/// or downstream's own reaction sending more) is queued and delivered right after it; the terminal
/// event goes out after the elements accepted before it, and elements after it are dropped.
// @unchecked Sendable: mutable state is in `state` (a LockedState); the rest is the drain loop.
class SideSubscriptionSink<Input, Output>: DrainingSink<Input, Output>, @unchecked Sendable {
    private struct State {
        /// Elements that found someone delivering.
        var queue = FIFOBuffer<Output>()
        var terminal: Termination?
        var side: Disposable?
    }

    private let state = LockedState<State>.make(State())

    /// Keeps the side subscription, to dispose it with the sink (at once if already disposed).
    final func attach(_ side: Disposable) {
        let disposeNow = state.withLock { state -> Bool in
            if isDisposed { return true }
            state.side = side
            return false
        }
        if disposeNow {
            side.dispose()
        }
    }

    /// Sends `element` downstream now, or after the delivery in progress; drops it once a terminal
    /// event is decided.
    final func emit(_ element: Output) {
        guard !isStoppedOrDisposed else { return }
        if tryClaimEmission() {
            forwardNext(element)
            releaseEmission()
            return
        }
        let queued = state.withLock { state -> Bool in
            guard state.terminal == nil else { return false }
            state.queue.append(element)
            return true
        }
        if queued { signal() }
    }

    /// Ends the sequence with `terminal` (after the elements accepted before it); the first call wins.
    final func end(_ terminal: Termination) {
        let decided = state.withLock { state -> Bool in
            guard state.terminal == nil else { return false }
            state.terminal = terminal
            return true
        }
        if decided { signal() }
    }

    override final func onError(_ error: Error) {
        end(.error(error))
    }

    override final func onCompleted() {
        end(.completed)
    }

    override final func drainOne() -> DrainStep {
        deliver(state.withLock { $0.queue.nextEvent(before: $0.terminal) })
    }

    override func didDispose() {
        let (side, dropped) = state.withLock { state -> (Disposable?, FIFOBuffer<Output>) in
            defer { state.side = nil }
            return (state.side, state.queue.takeAll())
        }
        _ = dropped
        side?.dispose()
        super.didDispose()
    }
}
