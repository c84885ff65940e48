import Foundation
import RxCore

/// The client's retry policy as an interceptor: the one place where a call decides to send again
/// after a failure. It asks the call's `RetryPolicy` (attempts, idempotency, the kind of failure,
/// `Retry-After`, the deadline) and the host's retry budget, and answers `.retry(after:)` or lets the
/// failure pass, marked as decided (`decidedByRetryPolicy`) when the policy allows retries at all.
///
/// Only failures of attempts that reached the transport are retried: a refusal before sending (an
/// open circuit, a full queue, a failed refresh, a header that failed its checks) passes as it is.
/// The wait itself, and its early end when the host comes back, belong to the call.
struct RetryInterceptor: ImmediateInterceptor {
    func prepareAtOnce(_ request: HTTPTransportRequest, for call: HTTPCall) -> ImmediateDecision? {
        .pass
    }

    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
        guard case .failure(var error) = result, call.attemptReachedTransport else { return .proceed }
        let policy = call.retryPolicy
        error.isSafeToRepeat = call.idempotency.allowsRepeatAfterSending(call.method, idempotentMethods: policy.retryableMethods)
        let attemptsMade = call.sends - call.replays
        guard attemptsMade < policy.maxAttempts,
              policy.shouldRetry(error, method: call.method, idempotency: call.idempotency) else {
            return .replace(.failure(decided(error, by: policy)))
        }
        let wait = policy.delay(beforeRetry: attemptsMade, after: error, now: Date())
        if let timeLeft = call.timeLeft, wait >= timeLeft {
            let reason = "retrying after \(Self.seconds(wait)) would pass the deadline (\(Self.seconds(max(0, timeLeft))) left)"
            error.message = [error.message, reason].compactMap { $0 }.joined(separator: "; ")
            return .replace(.failure(decided(error, by: policy)))
        }
        if let gate = call.plan.gate, !gate.withdrawRetry(now: call.now) {
            var exhausted = HTTPClientError(
                .retryBudgetExhausted, message: "the retry budget of \(gate.origin) is spent; the failure was not retried",
                statusCode: error.statusCode, url: error.url, underlying: error, headers: error.headers, phase: error.phase
            )
            exhausted.decidedByRetryPolicy = true
            return .replace(.failure(exhausted))
        }
        return .retry(after: wait)
    }

    /// `error` as the policy leaves it: decided, when the policy could have retried something.
    private func decided(_ error: HTTPClientError, by policy: RetryPolicy) -> HTTPClientError {
        var error = error
        error.decidedByRetryPolicy = policy.maxAttempts > 1
        return error
    }

    private static func seconds(_ value: TimeInterval) -> String {
        String(format: "%.3g s", value)
    }
}
