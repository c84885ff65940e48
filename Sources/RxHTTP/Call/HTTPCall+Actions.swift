import Foundation
@_spi(RxNetworkKitInternals) import RxCore

// The actions of `HTTPCall` that reach past it: an attempt to the transport, its answer back out
// through the interceptors, and the call's end (delivered, failed or cut short) with its events.
// The object, its events in and its waits are in HTTPCall.swift.

// MARK: - Sending: what happens between the last interceptor and the transport

extension HTTPCall {
    /// Sends `attempt`: header validation, the deadline's share, the transport. A request that fails
    /// its checks is answered with the failure without sending.
    func send(_ attempt: CallStateMachine.Attempt) {
        if attempt.headersChanged {
            // The client checked its own headers when it built the request: only what interceptors
            // (plugins among them) may have added needs checking again.
            let prepared = attempt.shared.value
            do throws(HTTPClientError) {
                try HeaderValidation.validate(prepared.headers, url: prepared.url)
            } catch {
                step { $0.notSent(attempt, error: error) }
                return
            }
        }
        let now = client.clock.now
        let sent: CallStateMachine.SharedRequest
        switch core.withLock({ $0.machine.sending(attempt, at: now, deadline: deadline) }) {
        case .none:
            return
        case .ended(let ending):
            end(ending)
            return
        case .send(let bounded):
            sent = bounded
        }
        emit(.attemptStarted(attempt: attempt.number))
        let number = attempt.number
        let inline = client.transportCallsBackOnCallbackQueue
        let url = sent.value.url
        let exchange: Disposable
        if let pump = plan.stream {
            pump.begin(attempt: number) { [weak self] failure in self?.streamEnded(failure: failure) }
            var options = client.transportOptions
            options.maxStreamBacklogBytes = pump.maxBufferedBytes
            options.streamDemand = pump
            exchange = client.transport.stream(sent.value, options: options) { [self] part in
                switch part {
                case .success(.head(let head)):
                    // The head answers the attempt (status, interceptors, retries); the body flows on.
                    pump.noteHead(attempt: number)
                    let response = HTTPResponse(head)
                    step(inline: inline) { $0.transportAnswered(attempt: number, .success(response)) }
                case .success(let bodyOrEnd):
                    pump.receive(.success(bodyOrEnd), attempt: number)
                case .failure(let error):
                    let failure = URLErrorClassification.classify(error, url: url)
                    if pump.headSeen(attempt: number) {
                        pump.receive(.failure(failure), attempt: number)
                    } else {
                        step(inline: inline) { $0.transportAnswered(attempt: number, .failure(failure)) }
                    }
                }
            }
        } else if let slot = plan.upgrade {
            exchange = client.transport.upgrade(sent.value, options: client.transportOptions) { [self] result in
                let answer: Result<HTTPResponse, HTTPClientError>
                switch result {
                case .success(.switched(let head, let connection)):
                    if let refusal = slot.accept(head, connection: connection) {
                        answer = .failure(refusal)
                    } else {
                        answer = .success(HTTPResponse(head))
                    }
                case .success(.answered(let response)):
                    answer = .success(response)
                case .failure(let error):
                    answer = .failure(URLErrorClassification.classify(error, url: url))
                }
                step(inline: inline) { $0.transportAnswered(attempt: number, answer) }
            }
        } else {
            exchange = client.transport.send(sent.value, options: client.transportOptions) { [self] result in
                let answer = result.mapError { URLErrorClassification.classify($0, url: url) }
                step(inline: inline) { $0.transportAnswered(attempt: number, answer) }
            }
        }
        keep { $0.exchangeStarted(attempt: number, exchange) }
    }
}

// MARK: - Answering: an attempt's result goes back out through the interceptors that let it
// through, on the thread that answered, until one of them decides

extension HTTPCall {
    func answer(
        _ attempt: CallStateMachine.Attempt, _ transmission: CallStateMachine.Transmission?,
        _ transportResult: Result<HTTPResponse, HTTPClientError>, inline: Bool
    ) {
        var result = transportResult
        // Tested once: each test of an optional `Transmission` copies it (a retain per field).
        let reachedTransport: Bool
        if let transmission {
            reachedTransport = true
            emitAnswer(transportResult, attempt: attempt.number, sentAt: transmission.sentAt)
            result = result.flatMap { validate($0, sentTo: transmission.shared.value.url) }
        } else {
            reachedTransport = false
        }
        // What the observers see: the result after the plugins' `process` (their interceptor is the
        // innermost), before the decisions of the interceptors further out.
        var seen = result
        var decision: CallStateMachine.Decision?
        var index = attempt.passed
        while decision == nil, index > 0 {
            index -= 1
            decision = CallStateMachine.fold(interceptors[index].didReceive(result, for: self), into: &result)
            if index == pluginStep {
                seen = result
            }
        }
        let final = decision ?? CallStateMachine.Decision(result)
        if reachedTransport {
            for observer in observers {
                observer.attemptDidEnd(seen, for: self)
            }
        }
        if let pump = plan.stream {
            if case .deliver = final {} else {
                // A stream's body is not wanted after a refused head: retried, replayed or failed.
                pump.abandon(attempt: attempt.number)
            }
        }
        let isShuttingDown = client.isShuttingDown
        let now = client.clock.now
        conclude(inline: inline) {
            $0.answered(
                attempt: attempt.number, final, isStream: plan.stream != nil, isShuttingDown: isShuttingDown, at: now,
                shutdownError: { [self] in shutdownError(stopping: $0) }
            )
        }
    }

    /// The acceptable statuses, and the body limit for transports that do not enforce it.
    func validate(_ response: HTTPResponse, sentTo requestURL: URL) -> Result<HTTPResponse, HTTPClientError> {
        let url = response.url ?? requestURL
        let limit = client.transportOptions.maxResponseBodySize
        guard response.body.count <= limit else {
            return .failure(HTTPClientError(
                .responseTooLarge, message: "the response body passed the limit of \(limit) bytes",
                statusCode: response.statusCode, url: url, headers: response.headers, phase: .responded
            ))
        }
        let accepted = plan.upgrade == nil
            ? client.configuration.acceptableStatusCodes.contains(response.statusCode)
            : response.statusCode == 101
        guard accepted else {
            return .failure(HTTPClientError(
                .unacceptableStatusCode, message: "status \(response.statusCode) is not acceptable",
                statusCode: response.statusCode, body: response.body, url: url, headers: response.headers
            ))
        }
        return .success(response)
    }

    /// Tells the events how the transport answered attempt `number`.
    func emitAnswer(_ result: Result<HTTPResponse, HTTPClientError>, attempt number: Int, sentAt: Date) {
        emit({
            let duration = max(0, client.clock.now.timeIntervalSince(sentAt))
            switch result {
            case .success(let response):
                return .response(attempt: number, statusCode: response.statusCode, duration: duration)
            case .failure(let error) where error.phase == .responded && error.statusCode != nil:
                return .response(attempt: number, statusCode: error.statusCode ?? 0, duration: duration)
            case .failure(let error):
                return .attemptFailed(attempt: number, code: error.code, phase: error.phase, duration: duration)
            }
        }())
    }
}

// MARK: - Ending: delivered, failed, or cut short (cancelled, past its deadline, shut down), and the
// events the call emits on the way

extension HTTPCall {
    /// Decodes `response` and delivers it, on the callback context: here if the answer came on the
    /// callback queue already (the default transport), else after one hop.
    ///
    /// Decoding after the hop, not on the answering thread, is measured: over AsyncHTTPClient on 2
    /// cores, decoding on the event loops held their I/O back (64 in flight: 22,800 against 25,600
    /// req/s, 71 against 60 µs of CPU per request), and the callback queue, busier, woke up less.
    func deliver(_ response: HTTPResponse, inline: Bool) {
        guard inline else {
            client.runOnCallbackContext { [self] in deliver(response, inline: true) }
            return
        }
        guard let receiver = core.withLock({ $0.receiver }) else { return }
        var context = ResponseDecodingContext(decoder: client.configuration.jsonDecoder, envelope: client.configuration.envelope)
        context.attempts = sends
        context.elapsed = max(0, client.clock.now.timeIntervalSince(startedAt))
        let isStream = plan.stream != nil
        let failure = receiver.deliver(response, context: context) {
            core.withLock { $0.receiver = nil }
            // A stream's head: the call ends with its body (`streamEnded`).
            if !isStream {
                finished(.success(response.statusCode), bodyBytes: response.body.count, cacheStatus: response.cacheStatus)
            }
        }
        if let failure {
            fail(failure, inline: true)
        } else if !isStream {
            client.callFinished(id: id)
        }
    }

    /// Fails the call with `error` (its attempts counted) on the callback context.
    func fail(_ error: HTTPClientError, inline: Bool) {
        let failure = counted(error)
        onCallbackContext(inline: inline) { [self] in
            finished(.failure(failure), bodyBytes: failure.body?.count)
            takeReceiver()?.fail(failure)
            client.callFinished(id: id)
        }
    }

    /// The receiver, once: nil after it was taken.
    private func takeReceiver() -> (any Receiving)? {
        core.withLock { core in
            defer { core.receiver = nil }
            return core.receiver
        }
    }

    /// Ends the call early: releases what it held, tells the interceptors the attempt in progress
    /// owed a `didReceive`, and fails it on the callback context.
    func end(_ ending: CallStateMachine.Ending) {
        ending.release.forEach { $0.dispose() }
        let error = counted(terminationError(ending.reason, wasSending: ending.wasSending))
        if let unwind = ending.unwind {
            if let transmission = unwind.transmission {
                // Every attempt that started ends, for the events and the observers too.
                emitAnswer(.failure(error), attempt: unwind.attempt.number, sentAt: transmission.sentAt)
            }
            var index = unwind.attempt.passed
            while index > 0 {
                index -= 1
                _ = interceptors[index].didReceive(.failure(error), for: self)
            }
            if unwind.transmission != nil {
                for observer in observers {
                    observer.attemptDidEnd(.failure(error), for: self)
                }
            }
        }
        if let stream = plan.stream, ending.stream != nil {
            // The reader left, or the grace period ended: the body is over, its reader is told.
            stream.fail(error)
            finished(.failure(error), bodyBytes: stream.receivedBytes)
            stream.whenTerminalDelivered { [client, id] in client.callFinished(id: id) }
            return
        }
        onCallbackContext(inline: false) { [self] in
            finished(.failure(error), bodyBytes: nil)
            takeReceiver()?.fail(error)
            client.callFinished(id: id)
        }
    }

    /// A delivered stream's body ended (or failed, or overflowed): the call is over.
    func streamEnded(_ transmission: CallStateMachine.Transmission, failure: HTTPClientError?) {
        finished(failure.map { .failure(counted($0)) } ?? .success(core.withLock { $0.machine.lastStatus } ?? 200),
                 bodyBytes: plan.stream?.receivedBytes)
        // Live until the reader has its end: a shutdown completes after it, never before.
        if let stream = plan.stream {
            stream.whenTerminalDelivered { [client, id] in client.callFinished(id: id) }
        } else {
            client.callFinished(id: id)
        }
    }

    /// `error` with the call's attempts and whether the request may be repeated.
    private func counted(_ error: HTTPClientError) -> HTTPClientError {
        var error = error
        error.attempts = sends
        error.isSafeToRepeat = plan.idempotency.allowsRepeatAfterSending(plan.method, idempotentMethods: plan.policy.retryableMethods)
        return error
    }

    /// The call is over: the observing interceptors (`callDidFinish`; the plugins' `didFinish` among
    /// them) and the events (`.completed`) hear of it, once, with the same summary.
    ///
    /// - Parameter outcome: The status delivered, or the failure.
    private func finished(_ outcome: Result<Int, HTTPClientError>, bodyBytes: Int?, cacheStatus: CacheStatus? = nil) {
        let listening = client.eventHub.isActive
        guard listening || !observers.isEmpty else { return }
        let duration = max(0, client.clock.now.timeIntervalSince(startedAt))
        let attempts = sends
        let summary = HTTPCallSummary(
            outcome: outcome, duration: duration, attempts: attempts, bodyBytes: bodyBytes, isStream: plan.stream != nil,
            cacheStatus: cacheStatus, url: url
        )
        for observer in observers {
            observer.callDidFinish(summary, for: self)
        }
        guard listening else { return }
        let result: HTTPClientEvent.Outcome
        switch outcome {
        case .success(let status): result = .success(statusCode: status)
        case .failure(let error): result = .failure(code: error.code, statusCode: error.statusCode, phase: error.phase)
        }
        client.eventHub.emit(HTTPClientEvent(
            requestID: id, method: plan.method, url: redactedURL(), timestamp: client.clock.now,
            kind: .completed(result, duration: duration, attempts: attempts), bodyBytes: bodyBytes, cacheStatus: cacheStatus
        ))
    }

    /// Runs `work` where completions run: here if the event came from a transport that calls back
    /// on the callback queue, else after one hop.
    private func onCallbackContext(inline: Bool, _ work: @escaping @Sendable () -> Void) {
        if inline {
            work()
        } else {
            client.runOnCallbackContext(work)
        }
    }

    // MARK: Errors

    func cancelledError() -> HTTPClientError {
        HTTPClientError(.cancelled, message: "the request was cancelled", url: url, phase: sends == 0 ? .notSent : .sentWithoutResponse)
    }

    func terminationError(_ reason: CallStateMachine.Termination, wasSending: Bool) -> HTTPClientError {
        let (sends, lastError) = core.withLock { ($0.machine.sends, $0.machine.lastError) }
        var error: HTTPClientError
        switch reason {
        case .cancelled:
            error = HTTPClientError(.cancelled, message: "the request was cancelled", url: url,
                                    phase: sends == 0 ? .notSent : .sentWithoutResponse)
        case .shutdown:
            error = shutdownError(stopping: wasSending ? nil : lastError)
            if wasSending {
                error.message = "the client's shutdown grace period ended while the request was in flight"
                error.phase = .sentWithoutResponse
            }
        case .deadline:
            let seconds = plan.policy.deadline.map { String(format: "%.3g s", $0) } ?? "?"
            if !wasSending, let lastError {
                error = lastError
                error.message = [lastError.message, "the deadline of \(seconds) passed before it could be retried"]
                    .compactMap { $0 }.joined(separator: "; ")
            } else {
                error = HTTPClientError(
                    .timedOut, message: "the deadline of \(seconds) passed", url: url,
                    phase: wasSending || sends > 0 ? .sentWithoutResponse : .notSent
                )
            }
            error.decidedByRetryPolicy = plan.policy.maxAttempts > 1
        }
        return error
    }

    func shutdownError(stopping lastError: HTTPClientError?) -> HTTPClientError {
        var error = HTTPClientError(
            .shutdown, message: lastError == nil ? "the client is shutting down" : "the client is shutting down; the failure was not retried",
            url: url, underlying: lastError, phase: lastError?.phase ?? .notSent
        )
        error.statusCode = lastError?.statusCode
        return error
    }

    // MARK: Events

    /// Emits an event of this call, if anybody listens (the event is not even built otherwise).
    func emit(_ kind: @autoclosure () -> HTTPClientEvent.Kind) {
        guard client.eventHub.isActive else { return }
        client.eventHub.emit(HTTPClientEvent(
            requestID: id, method: plan.method, url: redactedURL(), timestamp: client.clock.now, kind: kind()
        ))
    }

    /// The request's URL as events show it: redacted once per call.
    func redactedURL() -> String? {
        if let cached = core.withLock({ $0.redactedURL }) { return cached }
        let redacted = url.flatMap { Redaction.standard.url($0) }
        core.withLock { $0.redactedURL = redacted }
        return redacted
    }
}
