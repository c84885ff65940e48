import Foundation
/// The state machine behind `retry(_:delay:scheduler:didBecomeReachable:shouldRetry:)`.
///
/// Phases: `running` while an attempt (ResubscribingSink's) is subscribed to the source; `waiting(generation)`
/// between attempts, when a timer and the reachability signal race to restart; `terminated` after
/// the terminal event or dispose. A restart is claimed under the lock by comparing generations, so
/// the loser of the race (and any late signal) finds nothing to do.
// @unchecked Sendable: every mutable field is in `state`, one LockedState; the resubscribe loop
// and the running attempt are ResubscribingSink's.
final class RetryWithDelaySink<Element>: ResubscribingSink<Element>, @unchecked Sendable {
    private enum Phase {
        case running
        case waiting(generation: Int)
        case terminated
    }

    private struct State {
        var phase = Phase.running
        var generation = 0
        var pendingWait: Disposable?
        var waitError: Error?
        var waitDelay: Double = 0
        var waitStarted = Date.distantPast
    }

    private let policy: RetryWithDelayPolicy
    private let state = LockedState<State>.make(State())

    init(source: Observable<Element>, policy: RetryWithDelayPolicy, downstream: ObserverNode<Element>) {
        self.policy = policy
        super.init(source: source, downstream: downstream)
    }

    func start() {
        resubscribe()
    }

    override func attemptFailed(_ error: Error) {
        // A user closure: asked before taking the lock, never under it.
        let retryable = policy.shouldRetry(error)
        let attempts = attemptCount
        let decision = state.withLock { state -> RetryDecision in
            guard case .running = state.phase else { return .ignore }
            guard attempts < policy.maxAttemptCount, retryable else {
                state.phase = .terminated
                return .fail
            }
            state.generation += 1
            state.phase = .waiting(generation: state.generation)
            return .retry(number: attempts)
        }
        switch decision {
        case .ignore: return
        case .fail: forwardError(error)
        case .retry(let number): wait(beforeRetry: number, after: error)
        }
    }

    override func attemptCompleted() {
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
        let attempts = attemptCount
        let claimed = state.withLock { state -> (claimed: Bool, wait: Disposable?, notification: RetryNotification<Error>?) in
            guard case .waiting(let current) = state.phase, current == generation else { return (false, nil, nil) }
            state.phase = .running
            defer { state.pendingWait = nil; state.waitError = nil }
            let notification = state.waitError.map {
                RetryNotification(
                    attempt: attempts + 1, error: $0, delay: state.waitDelay, trigger: trigger,
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
        resubscribe()
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
