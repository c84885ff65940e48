import Foundation
/// The state machine behind `retry(_:delay:scheduler:didBecomeReachable:shouldRetry:)`.
///
/// Phases: `running(attempt)` while a subscription to the source is live; `waiting(generation)`
/// between attempts, when a timer and the reachability signal race to restart; `terminated` after
/// the terminal event or dispose. A restart is claimed under the lock by comparing generations, so
/// the loser of the race (and any late signal) finds nothing to do.
// @unchecked Sendable: every mutable field is in `state`, one LockedState.
final class RetryWithDelaySink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private enum Phase {
        case running
        case waiting(generation: Int)
        case terminated
    }

    private struct State {
        var phase = Phase.running
        var attempts = 0
        var generation = 0
        /// Trampoline for synchronous restarts (zero delay): set when a restart is requested while
        /// `subscribeLoop` is already on the stack, so that it loops instead of recursing.
        var isSubscribing = false
        var restartRequested = false
        /// The timer and reachability subscription of the current wait.
        var pendingWait: Disposable?
        /// What the current wait is for, told to `onRetry` when it ends.
        var waitError: Error?
        var waitDelay: Double = 0
        var waitStarted = Date.distantPast
    }

    private let source: Observable<Element>
    private let policy: RetryWithDelayPolicy
    private let state = LockedState<State>.make(State())
    private let attemptSubscription = SerialDisposable()

    init(source: Observable<Element>, policy: RetryWithDelayPolicy, downstream: ObserverNode<Element>) {
        self.source = source
        self.policy = policy
        super.init(downstream: downstream)
    }

    func start() {
        setUpstream(attemptSubscription)
        subscribeLoop()
    }

    private func subscribeLoop() {
        let shouldRun = state.withLock { state -> Bool in
            if state.isSubscribing {
                state.restartRequested = true
                return false
            }
            state.isSubscribing = true
            return true
        }
        guard shouldRun else { return }
        while true {
            let proceed = state.withLock { state -> Bool in
                state.restartRequested = false
                if case .terminated = state.phase { return false }
                state.phase = .running
                state.attempts += 1
                return true
            }
            if proceed {
                attemptSubscription.disposable = source.subscribe(self)
            }
            let again = state.withLock { state -> Bool in
                if state.restartRequested { return true }
                state.isSubscribing = false
                return false
            }
            if !again { return }
        }
    }

    override func onNext(_ element: Element) {
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        // A user closure: asked before taking the lock, never under it.
        let retryable = policy.shouldRetry(error)
        let decision = state.withLock { state -> RetryDecision in
            // Only the running attempt may fail; anything else is a late or stray event.
            guard case .running = state.phase else { return .ignore }
            guard state.attempts < policy.maxAttemptCount, retryable else {
                state.phase = .terminated
                return .fail
            }
            state.generation += 1
            state.phase = .waiting(generation: state.generation)
            return .retry(number: state.attempts)
        }
        switch decision {
        case .ignore: return
        case .fail: forwardError(error)
        case .retry(let number): wait(beforeRetry: number, after: error)
        }
    }

    override func onCompleted() {
        state.withLock { $0.phase = .terminated }
        forwardCompleted()
    }

    private func wait(beforeRetry retryNumber: Int, after error: Error) {
        let requested = policy.delayFor(retryNumber, error)
        let seconds = requested.isNaN ? 0 : max(0, requested)
        let now = policy.scheduler.now
        let generation = state.withLock { state -> Int in
            state.waitError = error
            state.waitDelay = seconds
            state.waitStarted = now
            return state.generation
        }
        if seconds == 0 {
            restart(generation: generation, trigger: .immediate)
            return
        }
        let timer: Disposable
        if seconds.isFinite {
            timer = policy.scheduler.scheduleRelative((), dueTime: .seconds(seconds)) { [weak self] _ in
                self?.restart(generation: generation, trigger: .timer)
                return Disposables.create()
            }
        } else {
            timer = Disposables.create()
        }
        // The signal may fire while we subscribe (even synchronously, within `subscribe`).
        let reachable = policy.didBecomeReachable.subscribe(
            onNext: { [weak self] in self?.restart(generation: generation, trigger: .reachability) }
        )
        let pending = Disposables.create(timer, reachable)
        let stillWaiting = state.withLock { state -> Bool in
            guard case .waiting(let current) = state.phase, current == generation else { return false }
            state.pendingWait = pending
            return true
        }
        if !stillWaiting {
            pending.dispose()
        }
    }

    /// Starts the next attempt if the wait for `generation` is still current; a no-op otherwise, so
    /// the loser of the timer/reachability race, or a second signal, restarts nothing.
    private func restart(generation: Int, trigger: RetryTrigger) {
        let now = policy.scheduler.now
        let claimed = state.withLock { state -> (claimed: Bool, wait: Disposable?, notification: RetryNotification<Error>?) in
            guard case .waiting(let current) = state.phase, current == generation else { return (false, nil, nil) }
            state.phase = .running
            defer { state.pendingWait = nil; state.waitError = nil }
            let notification = state.waitError.map {
                RetryNotification(
                    attempt: state.attempts + 1, error: $0, delay: state.waitDelay, trigger: trigger,
                    waited: max(0, now.timeIntervalSince(state.waitStarted))
                )
            }
            return (true, state.pendingWait, notification)
        }
        guard claimed.claimed else { return }
        claimed.wait?.dispose()
        if let notification = claimed.notification {
            policy.onRetry?(notification)
        }
        subscribeLoop()
    }

    override func didDispose() {
        let wait = state.withLock { state -> Disposable? in
            state.phase = .terminated
            defer { state.pendingWait = nil }
            return state.pendingWait
        }
        wait?.dispose()
        super.didDispose()
    }
}

private enum RetryDecision {
    case ignore
    case fail
    case retry(number: Int)
}
