/// The base of operators that subscribe to a source again after the previous subscription ended:
/// `retry`, `retry(when:)`, `retry(_:delay:)` (the same source again after an error), `catch` (the
/// handler's fallback after an error), `concat` (the next source after a completion) and
/// `catch(sequence:)` (the next source after an error). It owns the current attempt and the one loop
/// that starts the next.
///
/// `resubscribe()` runs on the sink's `DrainLoop`. A source that ends while it is being subscribed
/// (an `Observable.error`, a cache miss answered synchronously, a `just`) asks for the next attempt
/// from inside the `subscribe` call of the previous one; instead of recursing, the request is
/// recorded and the thread already in the loop starts the next attempt once that call has
/// returned. So `Observable.error(e).retry(100_000)` and `concat` of 100,000 `just`s run in
/// constant stack. A request from another thread while a subscription is on some stack is recorded
/// the same way, so exactly one attempt starts per request and attempts never overlap.
// @unchecked Sendable: `source` is immutable; the attempt and the request live in `state`; the
// loop's counter is atomic.
class ResubscribingSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct State {
        /// Another attempt was asked for and not yet started.
        var isRequested = false
        var attempt: ResubscriptionAttempt<Element>?
        var attemptCount = 0
    }

    private let source: Observable<Element>?
    private let state = LockedState<State>.make(State())
    private let loop = DrainLoop()

    /// A sink that subscribes `source` at each attempt, or (`source` nil) asks `nextSource()`.
    init(source: Observable<Element>?, downstream: ObserverNode<Element>) {
        self.source = source
        super.init(downstream: downstream)
    }

    /// The number of attempts started so far, the first included.
    final var attemptCount: Int {
        state.withLock { $0.attemptCount }
    }

    /// Starts a new attempt: now, or right after the subscription in progress returns.
    final func resubscribe() {
        let requested = state.withLock { state -> Bool in
            guard !isDisposed else { return false }
            state.isRequested = true
            return true
        }
        if requested, loop.signal() {
            loop.run(missed: 1) { startRequestedAttempt() }
        }
    }

    /// One step of the loop: starts the attempt asked for, if any.
    private func startRequestedAttempt() -> DrainStep {
        let requested = state.withLock { state -> Bool in
            defer { state.isRequested = false }
            return state.isRequested
        }
        guard requested else { return .idle }
        // Nobody downstream listens any more (`take(1)` already done): stop instead of spinning.
        guard !isDetached else { return .finished }
        // Called by the owner of the loop alone, without the lock: it may run user code (an iterator).
        guard let source = nextSource() else {
            sourcesExhausted()
            return .finished
        }
        let attempt = ResubscriptionAttempt(parent: self)
        let previous = state.withLock { state -> ResubscriptionAttempt<Element>?? in
            guard !isDisposed else { return .none }
            defer { state.attempt = attempt }
            state.attemptCount += 1
            return .some(state.attempt)
        }
        guard let previous else { return .finished }
        previous?.dispose()
        attempt.setUpstream(source.subscribe(attempt))
        return .delivered
    }

    /// The source of the next attempt, or nil when there is none. The default is the sink's one
    /// source, every time. Called only by the loop, one attempt at a time.
    func nextSource() -> Observable<Element>? {
        source
    }

    /// `nextSource()` had no source left. The default completes.
    func sourcesExhausted() {
        forwardCompleted()
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
