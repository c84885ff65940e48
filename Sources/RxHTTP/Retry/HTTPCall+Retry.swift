import Foundation
import RxCore

/// The retry decision and the wait between attempts: RxHTTP's one retry loop is `HTTPCall`'s
/// attempts, and this is the part of it that asks `RetryPolicy.decide` and waits.
extension HTTPCall {
    /// Asks the policy about a failed attempt: delivers the error, or starts the wait.
    func decideAfter(_ failure: HTTPClientError, attempt: Int) {
        var error = failure
        error.isSafeToRepeat = plan.idempotency.allowsRepeatAfterSending(plan.method, idempotentMethods: retryPolicy.retryableMethods)
        let counts = state.withLock { ($0.sends, $0.replays) }
        let decision = retryPolicy.decide(
            after: error, attemptsMade: counts.0 - counts.1, method: plan.method, idempotency: plan.idempotency,
            timeLeft: timeLeft(), now: Date()
        )
        switch decision {
        case .stop(var final):
            final.decidedByRetryPolicy = retryPolicy.maxAttempts > 1
            finish(.failure(final), ifStill: .receiving(attempt: attempt))
        case .retry(let delay):
            guard !client.isShuttingDown else {
                finish(.failure(shutdownError(stopping: error)), ifStill: .receiving(attempt: attempt))
                return
            }
            if let gate = plan.gate, !gate.withdrawRetry(now: retryPolicy.scheduler.now) {
                var exhausted = HTTPClientError(
                    .retryBudgetExhausted, message: "the retry budget of \(gate.origin) is spent; the failure was not retried",
                    statusCode: error.statusCode, url: error.url, underlying: error, headers: error.headers, phase: error.phase
                )
                exhausted.decidedByRetryPolicy = true
                finish(.failure(exhausted), ifStill: .receiving(attempt: attempt))
                return
            }
            wait(delay, after: error, attempt: attempt)
        }
    }

    /// Waits `delay` seconds, or until the host is reachable again, whichever comes first.
    func wait(_ delay: TimeInterval, after error: HTTPClientError, attempt: Int) {
        let scheduler = retryPolicy.scheduler
        let generation = state.withLock { state -> Int? in
            guard state.phase == .receiving(attempt: attempt) else { return nil }
            state.generation += 1
            state.phase = .waiting(generation: state.generation)
            state.lastError = error
            state.waitStarted = scheduler.now
            state.plannedDelay = delay
            return state.generation
        }
        guard let generation else { return }
        emit(.retryScheduled(nextAttempt: attempt + 1, delay: delay, after: error.code, statusCode: error.statusCode))
        guard delay > 0 else {
            endWait(generation: generation, trigger: .immediate)
            return
        }
        let timer = scheduler.scheduleRelative((), dueTime: .seconds(delay)) { [weak self] _ in
            self?.endWait(generation: generation, trigger: .timer)
            return Disposables.create()
        }
        var pieces: [Disposable] = [timer]
        if retryPolicy.retriesWhenReachable, let url = plan.request.url, let reachability = client.reachability(for: url) {
            // May fire at once, within `subscribe`: endWait claims the generation under the lock.
            pieces.append(reachability.didBecomeReachable.subscribe(onNext: { [weak self] in
                self?.endWait(generation: generation, trigger: .reachability)
            }))
        }
        let pending = Disposables.create(pieces)
        let stale = state.withLock { state -> Bool in
            guard state.phase == .waiting(generation: generation) else { return true }
            state.wait = pending
            return false
        }
        if stale {
            pending.dispose()
        }
    }

    /// Ends the wait of `generation` (the first of timer and reachability wins; a late signal finds
    /// nothing to do), tells `onRetry`, and queues the next attempt.
    func endWait(generation: Int, trigger: RetryTrigger) {
        let now = retryPolicy.scheduler.now
        let claimed = state.withLock { state -> (wait: Disposable?, notification: RetryNotification<HTTPClientError>?)? in
            guard state.phase == .waiting(generation: generation) else { return nil }
            state.phase = .queued
            defer { state.wait = nil }
            let notification = state.lastError.map {
                RetryNotification(
                    attempt: state.attempts + 1, error: $0, delay: state.plannedDelay, trigger: trigger,
                    waited: max(0, now.timeIntervalSince(state.waitStarted))
                )
            }
            return (state.wait, notification)
        }
        guard let claimed else { return }
        claimed.wait?.dispose()
        if let notification = claimed.notification {
            emit(.waitEnded(trigger: notification.trigger, waited: notification.waited))
            retryPolicy.onRetry?(notification)
        }
        if client.enqueue(self, bypassesSuspension: plan.bypassesSuspension) {
            emit(.held(.suspended))
        }
    }

    /// Seconds left before the deadline, on the policy's clock; nil without a deadline.
    func timeLeft() -> TimeInterval? {
        deadlineAt.map { $0.timeIntervalSince(retryPolicy.scheduler.now) }
    }
}
