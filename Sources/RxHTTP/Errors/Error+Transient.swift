import Foundation
import RxCore

extension Error {
    /// Whether trying again later may succeed, for any error a request can end with.
    ///
    /// True for an `HTTPClientError` that is transient (connection failures, time-outs, 408, 429,
    /// 5xx), for the `URLError`s of a connection that failed or timed out, and for
    /// `RxError.timeout`; false otherwise — decoding errors, 4xx and cancellation are not worth
    /// retrying. It is what `retry(..., shouldRetry: { $0.isTransient })` asks.
    public var isTransient: Bool {
        if let httpError = self as? HTTPClientError {
            return httpError.isTransient
        }
        if let rxError = self as? RxError {
            return rxError == .timeout
        }
        if let urlError = self as? URLError {
            switch urlError.code {
            case .timedOut, .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet,
                 .dnsLookupFailed, .cannotFindHost, .internationalRoamingOff, .callIsActive,
                 .dataNotAllowed, .secureConnectionFailed:
                return true
            default:
                return false
            }
        }
        return false
    }
}

extension Error {
    /// Whether repeating the request that ended in this error is worth it and safe: for an
    /// `HTTPClientError`, its `isRetryable` (transient, and not sent or idempotent, and not already
    /// decided by the client's own retry policy); for a `URLError`, a transient failure of a
    /// connection that was never made (refused, host not found); false otherwise.
    ///
    /// The predicate to give `retry(_:delay:didBecomeReachable:shouldRetry:)`.
    public var isRetryable: Bool {
        if let httpError = self as? HTTPClientError {
            return httpError.isRetryable
        }
        if let urlError = self as? URLError {
            return urlError.isTransient && URLErrorClassification.phase(ofFailure: urlError.code.rawValue, responded: false) == .notSent
        }
        return false
    }
}
