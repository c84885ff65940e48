import Foundation
import RxCore

/// How a call ends: cancelled, timed out by its deadline, stopped by a shutdown, or delivered — and
/// the events it emits on the way.
extension HTTPCall {
    enum Termination {
        case cancelled
        case deadline
        case shutdown
    }

    /// Cancels the call: removes it from the hold queue, cancels its transport or its wait, and
    /// delivers `.cancelled`. Does nothing once finished.
    func cancel() {
        terminate(.cancelled, onlyIf: { _ in true })
    }

    /// The client began shutting down: a call that is queued or waiting to retry fails with
    /// `.shutdown`; one in flight finishes (without retrying) or is cancelled at the grace
    /// period's end.
    func clientIsShuttingDown() {
        terminate(.shutdown, onlyIf: { phase in
            switch phase {
            case .queued, .waiting, .admitting, .authenticating: return true
            case .sending, .receiving, .finished: return false
            }
        })
    }

    /// The shutdown's grace period ended: whatever is left fails with `.shutdown`.
    func gracePeriodEnded() {
        terminate(.shutdown, onlyIf: { _ in true })
    }

    func deadlinePassed() {
        terminate(.deadline, onlyIf: { phase in
            if case .receiving = phase { return false }
            return true
        })
    }

    /// What `terminate` undoes after its lock: everything the call was waiting on or holding.
    struct Undo {
        var wasQueued: Bool
        var pending: [Disposable]
        var slot: HostGate.Slot?
        var notify: (request: URLRequest, info: HTTPRequestInfo)?
        var error: HTTPClientError
    }

    func terminate(_ reason: Termination, onlyIf allowed: (Phase) -> Bool) {
        let undo = state.withLock { state -> Undo? in
            guard state.phase != .finished, allowed(state.phase) else { return nil }
            let wasSending: Bool
            if case .sending = state.phase { wasSending = true } else { wasSending = false }
            let undo = Undo(
                wasQueued: state.phase == .queued,
                pending: [state.transportTask, state.wait, state.deadlineTimer, state.ticketWait, state.admissionWait].compactMap { $0 },
                slot: state.slot,
                notify: state.pluginsAwaitReceive ? state.sentRequest.flatMap { request in state.sentInfo.map { (request, $0) } } : nil,
                error: terminationError(reason, attempts: state.sends, lastError: state.lastError, wasSending: wasSending)
            )
            state.phase = .finished
            state.wasCancelled = reason == .cancelled
            state.pluginsAwaitReceive = false
            state.transportTask = nil
            state.wait = nil
            state.deadlineTimer = nil
            state.ticketWait = nil
            state.admissionWait = nil
            state.slot = nil
            return undo
        }
        guard let action = undo else { return }
        if action.wasQueued {
            client.removeHeld(id: id)
        }
        for pending in action.pending {
            pending.dispose()
        }
        if let slot = action.slot {
            plan.gate?.release(slot, outcome: .ignored, now: retryPolicy.scheduler.now)
        }
        let error = action.error
        let notify = action.notify
        client.runOnCallbackContext { [self] in
            if let notify {
                for plugin in client.plugins {
                    plugin.didReceive(.failure(error), request: notify.request, info: notify.info)
                }
            }
            emitCompleted(.failure(error), attempts: error.attempts)
            takeCompletion()?(.failure(error))
            client.callFinished(id: id)
        }
    }

    /// The completion, once: the phase is already `finished` when this is called.
    func takeCompletion() -> Completion? {
        state.withLock { state in
            defer { state.completion = nil; state.decode = nil }
            return state.completion
        }
    }

    func terminationError(_ reason: Termination, attempts: Int, lastError: HTTPClientError?, wasSending: Bool) -> HTTPClientError {
        let url = plan.request.url
        var error: HTTPClientError
        switch reason {
        case .cancelled:
            error = HTTPClientError(.cancelled, message: "the request was cancelled", url: url,
                                    phase: attempts == 0 ? .notSent : .sentWithoutResponse)
        case .shutdown:
            error = shutdownError(stopping: wasSending ? nil : lastError)
            if wasSending {
                error.message = "the client's shutdown grace period ended while the request was in flight"
                error.phase = .sentWithoutResponse
            }
        case .deadline:
            let seconds = retryPolicy.deadline.map { String(format: "%.3g s", $0) } ?? "?"
            if !wasSending, let lastError {
                error = lastError
                error.message = [lastError.message, "the deadline of \(seconds) passed before it could be retried"]
                    .compactMap { $0 }.joined(separator: "; ")
            } else {
                error = HTTPClientError(
                    .timedOut, message: "the deadline of \(seconds) passed", url: url,
                    phase: wasSending ? .sentWithoutResponse : (attempts == 0 ? .notSent : .sentWithoutResponse)
                )
            }
            error.decidedByRetryPolicy = retryPolicy.maxAttempts > 1
        }
        error.attempts = attempts
        error.isSafeToRepeat = plan.idempotency.allowsRepeatAfterSending(plan.method, idempotentMethods: retryPolicy.retryableMethods)
        return error
    }

    func shutdownError(stopping lastError: HTTPClientError?) -> HTTPClientError {
        var error = HTTPClientError(
            .shutdown, message: lastError == nil ? "the client is shutting down" : "the client is shutting down; the failure was not retried",
            url: plan.request.url, underlying: lastError, phase: lastError?.phase ?? .notSent
        )
        error.statusCode = lastError?.statusCode
        return error
    }

    // MARK: Delivery

    /// Delivers `result` if the call is still in `phase`; called on the callback queue.
    func finish(_ result: Result<Output, HTTPClientError>, ifStill phase: Phase) {
        let claimed = state.withLock { state -> (completion: Completion?, timer: Disposable?, attempts: Int)? in
            guard state.phase == phase else { return nil }
            state.phase = .finished
            defer { state.completion = nil; state.decode = nil; state.deadlineTimer = nil }
            return (state.completion, state.deadlineTimer, state.sends)
        }
        guard let claimed else { return }
        claimed.timer?.dispose()
        emitCompleted(result.map { _ in () }, attempts: claimed.attempts)
        claimed.completion?(result.mapError { error -> HTTPClientError in
            var error = error
            error.attempts = claimed.attempts
            error.isSafeToRepeat = plan.idempotency.allowsRepeatAfterSending(plan.method, idempotentMethods: retryPolicy.retryableMethods)
            return error
        })
        client.callFinished(id: id)
    }

    /// Fails the call from any thread if it is still in `phase`: the delivery hops to the callback
    /// queue, never running synchronously inside the call that made the request.
    func failLater(_ error: HTTPClientError, ifStill phase: Phase) {
        client.runOnCallbackContext { [self] in
            finish(.failure(error), ifStill: phase)
        }
    }

    /// Fails a call that the client refused to admit, on the callback queue.
    func refuse(_ error: HTTPClientError) {
        state.withLock { $0.phase = .finished }
        client.runOnCallbackContext { [self] in
            emitCompleted(.failure(error), attempts: 0)
            takeCompletion()?(.failure(error))
        }
    }

    // MARK: Events

    /// Emits an event of this call, if anybody listens (the event is not even built otherwise).
    func emit(_ kind: @autoclosure () -> HTTPClientEvent.Kind) {
        guard client.eventHub.isActive else { return }
        client.eventHub.emit(HTTPClientEvent(
            requestID: id, method: plan.method, url: redactedURL(), timestamp: retryPolicy.scheduler.now, kind: kind()
        ))
    }

    /// The request's URL as events show it: redacted once per call.
    func redactedURL() -> String? {
        if let cached = state.withLock({ $0.redactedURL }) { return cached }
        guard let url = plan.request.url else { return nil }
        let redacted = Redaction.standard.url(url)
        state.withLock { $0.redactedURL = redacted }
        return redacted
    }

    func emitCompleted(_ result: Result<Void, HTTPClientError>, attempts: Int) {
        guard client.eventHub.isActive else { return }
        let outcome: HTTPClientEvent.Outcome
        switch result {
        case .success:
            outcome = .success(statusCode: state.withLock { $0.lastStatus } ?? 200)
        case .failure(let error):
            outcome = .failure(code: error.code, statusCode: error.statusCode, phase: error.phase)
        }
        let duration = max(0, retryPolicy.scheduler.now.timeIntervalSince(startedAt))
        emit(.completed(outcome, duration: duration, attempts: attempts))
    }
}
