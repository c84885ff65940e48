import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// How a call ends — delivered, failed, or cut short (cancelled, past its deadline, shut down) — and
/// the events it emits on the way.
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
        guard let decode = core.withLock({ $0.receiver?.decode }) else { return }
        var context = ResponseDecodingContext(decoder: client.configuration.jsonDecoder, envelope: client.configuration.envelope)
        context.attempts = sends
        context.elapsed = max(0, client.clock.now.timeIntervalSince(startedAt))
        switch decode(response, context) {
        case .success(let delivery):
            core.withLock { $0.receiver = nil }
            guard plan.stream == nil else {
                // A stream's head: the call ends with its body (`streamEnded`).
                delivery()
                return
            }
            finished(.success(response.statusCode), bodyBytes: response.body.count, cacheStatus: response.cacheStatus)
            delivery()
            client.callFinished(id: id)
        case .failure(let error):
            fail(error, inline: true)
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
    private func takeReceiver() -> Receiver? {
        core.withLock { core in
            defer { core.receiver = nil }
            return core.receiver
        }
    }

    /// Ends the call early: releases what it held, tells the plugins and interceptors the attempt in
    /// progress owed a `didReceive`, and fails it on the callback context.
    func end(_ ending: CallStateMachine.Ending) {
        ending.release.forEach { $0.dispose() }
        let error = counted(terminationError(ending.reason, wasSending: ending.wasSending))
        if let unwind = ending.unwind {
            if let transmission = unwind.transmission {
                // Every attempt that started ends, for the events and the observers too.
                emitAnswer(.failure(error), attempt: unwind.attempt.number, sentAt: transmission.sentAt)
                let plugins = client.plugins
                if !plugins.isEmpty {
                    HTTPPluginBridge.didReceive(.failure(error), request: transmission.request, plugins: plugins, info: transmission.info)
                }
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

    /// The call is over: the observing interceptors (`callDidFinish`), the plugins (`didFinish`) and
    /// the events (`.completed`) hear of it, once, with the same summary.
    ///
    /// - Parameter outcome: The status delivered, or the failure.
    private func finished(_ outcome: Result<Int, HTTPClientError>, bodyBytes: Int?, cacheStatus: CacheStatus? = nil) {
        let plugins = client.plugins
        let listening = client.eventHub.isActive
        guard listening || !plugins.isEmpty || !observers.isEmpty else { return }
        let duration = max(0, client.clock.now.timeIntervalSince(startedAt))
        let attempts = sends
        let summary = HTTPCallSummary(
            outcome: outcome, duration: duration, attempts: attempts, bodyBytes: bodyBytes, isStream: plan.stream != nil,
            cacheStatus: cacheStatus, url: plan.request.url
        )
        for observer in observers {
            observer.callDidFinish(summary, for: self)
        }
        if !plugins.isEmpty {
            let info = HTTPRequestInfo(
                id: id, method: plan.method, path: plan.path, authorizationType: plan.authorizationType,
                declaresAuthorization: plan.declaresAuthorization, requestName: plan.requestName, callID: id,
                attempt: max(1, attempt)
            )
            for plugin in plugins {
                plugin.didFinish(summary, info: info)
            }
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
        HTTPClientError(.cancelled, message: "the request was cancelled", url: plan.request.url, phase: sends == 0 ? .notSent : .sentWithoutResponse)
    }

    func terminationError(_ reason: CallStateMachine.Termination, wasSending: Bool) -> HTTPClientError {
        let (sends, lastError) = core.withLock { ($0.machine.sends, $0.machine.lastError) }
        let url = plan.request.url
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
            url: plan.request.url, underlying: lastError, phase: lastError?.phase ?? .notSent
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
        let redacted = Redaction.standard.url(plan.request.url)
        core.withLock { $0.redactedURL = redacted }
        return redacted
    }
}
