/// The base of operators that subscribe to their source again after it fails (`retry`,
/// `retry(when:)`): it owns the current attempt and the loop that starts the next one.
///
/// `resubscribe()` is a trampoline. A source that fails while it is being subscribed (an
/// `Observable.error`, a cache miss answered synchronously) asks for the next attempt from inside
/// the `subscribe` call of the previous one; instead of recursing, the request is recorded and the
/// thread already in the loop starts the next attempt once that call has returned. So
/// `Observable.error(e).retry(100_000)` runs in constant stack. A request from another thread while
/// a subscription is on some stack is recorded the same way, so exactly one attempt starts per
/// request and attempts never overlap.
// @unchecked Sendable: `source` is immutable; the attempt and the loop flags live in `state`.
class ResubscribingSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct State {
        /// A thread is inside the loop of `resubscribe()`.
        var isLooping = false
        /// Another attempt was requested while a thread was looping.
        var isRequested = false
        var attempt: ResubscriptionAttempt<Element>?
        var attemptCount = 0
        var isDisposed = false
    }

    private let source: Observable<Element>
    private let state = LockedState<State>.make(State())

    init(source: Observable<Element>, downstream: ObserverNode<Element>) {
        self.source = source
        super.init(downstream: downstream)
    }

    /// The number of attempts started so far, the first included.
    final var attemptCount: Int {
        state.withLock { $0.attemptCount }
    }

    /// Starts a new attempt: now, or right after the subscription in progress returns.
    final func resubscribe() {
        let enters = state.withLock { state -> Bool in
            if state.isDisposed { return false }
            if state.isLooping {
                state.isRequested = true
                return false
            }
            state.isLooping = true
            return true
        }
        guard enters else { return }
        while true {
            // Nobody downstream listens any more (`take(1)` already done): stop instead of spinning.
            let attempt: ResubscriptionAttempt<Element>? = isDetached ? nil : ResubscriptionAttempt(parent: self)
            let previous = state.withLock { state -> ResubscriptionAttempt<Element>?? in
                guard let attempt, !state.isDisposed else {
                    state.isLooping = false
                    state.isRequested = false
                    return .none
                }
                defer { state.attempt = attempt }
                state.attemptCount += 1
                return .some(state.attempt)
            }
            guard let previous, let attempt else { return }
            previous?.dispose()
            attempt.setUpstream(source.subscribe(attempt))
            let again = state.withLock { state -> Bool in
                if state.isRequested && !state.isDisposed {
                    state.isRequested = false
                    return true
                }
                state.isLooping = false
                state.isRequested = false
                return false
            }
            if !again { return }
        }
    }

    /// The current attempt failed with `error` (it is already disposed). Subclasses decide.
    func attemptFailed(_ error: Error) {
        forwardError(error)
    }

    /// The current attempt completed. Subclasses may override; the default completes.
    func attemptCompleted() {
        forwardCompleted()
    }

    override func didDispose() {
        let attempt = state.withLock { state -> ResubscriptionAttempt<Element>? in
            state.isDisposed = true
            defer { state.attempt = nil }
            return state.attempt
        }
        attempt?.dispose()
        super.didDispose()
    }
}

/// One subscription to the source of a `ResubscribingSink`: elements go straight downstream,
/// terminal events go to the parent.
// @unchecked Sendable: `parent` is immutable; the lifecycle word is atomic.
final class ResubscriptionAttempt<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    private let parent: ResubscribingSink<Element>

    init(parent: ResubscribingSink<Element>) {
        self.parent = parent
        super.init()
    }

    override var isDetached: Bool {
        isStoppedOrDisposed || parent.isDetached
    }

    override func onNext(_ element: Element) {
        if !isStoppedOrDisposed {
            parent.forwardNext(element)
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            dispose()
            parent.attemptFailed(error)
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            dispose()
            parent.attemptCompleted()
        }
    }
}
