/// The state machine of `concat`: subscribes the sources one after the other, observing each itself.
///
/// Moving to the next source is a trampoline: the caller that finds no one advancing takes the
/// "advancing" role and subscribes sources in a loop; a source that completes while the loop is
/// still inside its `subscribe` only flags it (`advancePending`), and the loop goes round. So a
/// hundred thousand synchronous sources take constant stack depth, and a source that completes
/// later, on another thread, starts the loop there. Downstream is never called concurrently: the
/// next source is subscribed only after the previous one has sent its last event.
// @unchecked Sendable: mutable state lives in `state`; `sources` is immutable.
final class ConcatSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct State {
        /// The next source to subscribe.
        var nextIndex = 0
        /// The subscription of the running source, once its `subscribe` returned.
        var current: Disposable?
        /// Whether some caller is in the subscribe loop.
        var isAdvancing = false
        /// The running source completed while the loop was inside its `subscribe`.
        var advancePending = false
        var isDisposed = false
    }

    private let state = LockedState.make(State())
    private let sources: [Observable<Element>]

    init(sources: [Observable<Element>], downstream: ObserverNode<Element>) {
        self.sources = sources
        super.init(downstream: downstream)
    }

    func run() {
        state.withLock { $0.isAdvancing = true }
        advance()
    }

    override func onNext(_ element: Element) {
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        var previous: Disposable?
        let startsLoop = state.withLock { state -> Bool in
            previous = state.current
            state.current = nil
            if state.isAdvancing {
                state.advancePending = true
                return false
            }
            state.isAdvancing = true
            return true
        }
        previous?.dispose()
        if startsLoop {
            advance()
        }
    }

    /// The subscribe loop; the caller holds the advancing role.
    private func advance() {
        while true {
            var index = 0
            let hasNext = state.withLock { state -> Bool in
                guard !state.isDisposed, state.nextIndex < sources.count else { return false }
                index = state.nextIndex
                state.nextIndex += 1
                state.advancePending = false
                return true
            }
            guard hasNext else {
                forwardCompleted()
                return
            }
            let subscription = sources[index].subscribe(self)
            var disposeNow = false
            let again = state.withLock { state -> Bool in
                if state.isDisposed || state.advancePending {
                    // Disposed meanwhile, or the source already completed: nothing to keep.
                    disposeNow = true
                    return !state.isDisposed
                }
                state.current = subscription
                state.isAdvancing = false
                return false
            }
            if disposeNow {
                subscription.dispose()
            }
            if !again {
                return
            }
        }
    }

    override func didDispose() {
        let current = state.withLock { state -> Disposable? in
            state.isDisposed = true
            defer { state.current = nil }
            return state.current
        }
        current?.dispose()
        super.didDispose()
    }
}
