import Foundation

extension RetryPolicy {
    /// What the retry loop does after a failed attempt.
    enum Decision {
        /// Wait this many seconds (or until the host is reachable again), then send again.
        case retry(after: TimeInterval)
        /// Deliver this error.
        case stop(HTTPClientError)
    }

    /// The one retry decision of a call, asked after each failed attempt.
    ///
    /// - Parameters:
    ///   - error: The failure of the attempt.
    ///   - attemptsMade: Attempts sent so far, this one included.
    ///   - method: The request's method.
    ///   - idempotency: The request's declaration.
    ///   - timeLeft: Seconds left before the deadline; nil without one.
    ///   - now: The wall clock, for `Retry-After` dates.
    func decide(
        after error: HTTPClientError,
        attemptsMade: Int,
        method: HTTPMethod,
        idempotency: Idempotency,
        timeLeft: TimeInterval?,
        now: Date
    ) -> Decision {
        guard attemptsMade < maxAttempts,
              shouldRetry(error, method: method, idempotency: idempotency) else { return .stop(error) }
        let wait = delay(beforeRetry: attemptsMade, after: error, now: now)
        if let timeLeft, wait >= timeLeft {
            var late = error
            let reason = "retrying after \(Self.seconds(wait)) would pass the deadline (\(Self.seconds(max(0, timeLeft))) left)"
            late.message = [error.message, reason].compactMap { $0 }.joined(separator: "; ")
            return .stop(late)
        }
        return .retry(after: wait)
    }

    private static func seconds(_ value: TimeInterval) -> String {
        String(format: "%.3g s", value)
    }
}
