/// The state machine of `zip` over two sources; see `ZipProgress` for when it completes and
/// `DrainingSink` for how deliveries are serialized.
///
/// An element takes the lock once: it is buffered and, if it completes a tuple and no one is
/// delivering, the tuple is taken out in the same critical section and delivered after unlocking.
// @unchecked Sendable: the buffers and progress live in `state`; the rest is immutable.
final class Zip2Sink<E1, E2, Result>: DrainingSink<Never, Result>, SourceObserverParent, @unchecked Sendable {
    private struct State {
        var buffer1 = FIFOBuffer<E1>()
        var buffer2 = FIFOBuffer<E2>()
        var progress = ZipProgress()

        var hasTuple: Bool {
            !buffer1.isEmpty && !buffer2.isEmpty
        }
    }

    private let state = LockedState.make(State())
    private let resultSelector: (E1, E2) throws -> Result

    init(resultSelector: @escaping (E1, E2) throws -> Result, downstream: ObserverNode<Result>) {
        self.resultSelector = resultSelector
        super.init(downstream: downstream)
    }

    func run(_ source1: Observable<E1>, _ source2: Observable<E2>) {
        let observer1 = SourceObserver<E1>(parent: self, index: 0) { self.next1($0) }
        let observer2 = SourceObserver<E2>(parent: self, index: 1) { self.next2($0) }
        setUpstream(SubscriptionGroup(members: [observer1, observer2]))
        observer1.subscribe(to: source1, unless: isStoppedOrDisposed)
        observer2.subscribe(to: source2, unless: isStoppedOrDisposed)
    }

    private func next1(_ element: E1) {
        let tuple = state.withLock { state -> (E1, E2)? in
            guard !state.progress.isStopped else { return nil }
            state.buffer1.append(element)
            return claimTuple(&state)
        }
        if let tuple {
            deliverClaimed(tuple)
        }
    }

    private func next2(_ element: E2) {
        let tuple = state.withLock { state -> (E1, E2)? in
            guard !state.progress.isStopped else { return nil }
            state.buffer2.append(element)
            return claimTuple(&state)
        }
        if let tuple {
            deliverClaimed(tuple)
        }
    }

    /// Under the lock: if a tuple is ready, signals it; returns it if this caller took the emission
    /// right (otherwise the current owner's drain loop takes it).
    @inline(__always)
    private func claimTuple(_ state: inout State) -> (E1, E2)? {
        guard state.hasTuple,
              pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0
        else { return nil }
        return takeTuple(&state)
    }

    /// Under the lock: removes the next tuple; if that exhausts a completed source, decides
    /// completion and signals it.
    @inline(__always)
    private func takeTuple(_ state: inout State) -> (E1, E2) {
        let tuple = (state.buffer1.removeFirst(), state.buffer2.removeFirst())
        if state.progress.checkExhausted(0, bufferIsEmpty: state.buffer1.isEmpty)
            || state.progress.checkExhausted(1, bufferIsEmpty: state.buffer2.isEmpty) {
            pendingSignals.add(1, ordering: .acquiringAndReleasing)
        }
        return tuple
    }

    /// Delivers a tuple taken with the emission right, then gives the right back.
    private func deliverClaimed(_ tuple: (E1, E2)) {
        if deliver(tuple) {
            releaseEmission()
        }
    }

    /// Runs the result selector and sends the result; false if the selector threw (and the error
    /// was delivered, ending the sequence).
    private func deliver(_ tuple: (E1, E2)) -> Bool {
        let result: Result
        do {
            result = try resultSelector(tuple.0, tuple.1)
        } catch {
            forwardError(error)
            return false
        }
        forwardNext(result)
        return true
    }

    override func drainOne() -> DrainStep {
        var terminal: PendingTerminal?
        let tuple = state.withLock { state -> (E1, E2)? in
            if state.hasTuple {
                return takeTuple(&state)
            }
            terminal = state.progress.takeTerminal()
            return nil
        }
        if let tuple {
            return deliver(tuple) ? .delivered : .finished
        }
        if let terminal {
            deliver(terminal)
            return .finished
        }
        return .idle
    }

    func sourceCompleted(_ index: Int) {
        let ended = state.withLock { state in
            state.progress.sourceCompleted(
                index, bufferIsEmpty: index == 0 ? state.buffer1.isEmpty : state.buffer2.isEmpty
            )
        }
        if ended {
            signal()
        }
    }

    func sourceFailed(_ error: Error) {
        if state.withLock({ $0.progress.sourceFailed(error) }) {
            signal()
        }
    }

    override func didDispose() {
        // The buffered elements are released after unlocking.
        _ = state.withLock { state -> State in
            defer {
                state = State()
                state.progress.cancel()
            }
            return state
        }
        super.didDispose()
    }
}
