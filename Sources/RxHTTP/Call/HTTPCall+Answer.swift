import Foundation
import RxCore

/// The answer action: an attempt's result goes back out through the plugins and the interceptors
/// that let it through, on the thread that answered, until one of them decides.
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
            result = result.flatMap { validate($0, request: transmission.request) }
            let plugins = client.plugins
            if !plugins.isEmpty {
                HTTPPluginBridge.didReceive(result, request: transmission.request, plugins: plugins, info: transmission.info)
            }
            for plugin in plugins {
                result = plugin.process(result, info: transmission.info)
            }
        } else {
            reachedTransport = false
        }
        let seen = result
        var decision: CallStateMachine.Decision?
        var index = attempt.passed
        while decision == nil, index > 0 {
            index -= 1
            switch interceptors[index].didReceive(result, for: self) {
            case .proceed:
                break
            case .replace(let replacement):
                result = replacement
            case .retry(let delay):
                decision = .retry(after: TimeoutBounds.clampedWait(delay), error: result.failureForRepeat)
            case .replay:
                decision = .replay(result.failureForRepeat)
            case .stop(let error):
                decision = .fail(error)
            }
        }
        let final: CallStateMachine.Decision
        switch (decision, result) {
        case (let decided?, _): final = decided
        case (nil, .success(let response)): final = .deliver(response)
        case (nil, .failure(let error)): final = .fail(error)
        }
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
        apply(inline: inline) {
            $0.answered(
                attempt: attempt.number, final, isStream: plan.stream != nil, isShuttingDown: isShuttingDown, at: now,
                shutdownError: { [self] in shutdownError(stopping: $0) }
            )
        }
    }

    /// The acceptable statuses, and the body limit for transports that do not enforce it.
    func validate(_ response: HTTPResponse, request: HTTPTransportRequest) -> Result<HTTPResponse, HTTPClientError> {
        let url = response.url ?? request.url
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

extension Result where Success == HTTPResponse, Failure == HTTPClientError {
    /// The error a repeat follows: the failure, or for an answer an interceptor wants repeated, the
    /// answer as an unacceptable status.
    var failureForRepeat: HTTPClientError {
        switch self {
        case .failure(let error):
            return error
        case .success(let response):
            return HTTPClientError(
                .unacceptableStatusCode, message: "an interceptor asked to send again after status \(response.statusCode)",
                statusCode: response.statusCode, body: response.body, url: response.url, headers: response.headers
            )
        }
    }
}
