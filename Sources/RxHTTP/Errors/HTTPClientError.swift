import Foundation

/// Every failure of an `HTTPClient` request: what went wrong (`code`), and whatever is known about it.
///
/// Bad input never crashes or hangs a request; it ends in one of these:
/// - `.invalidRequest`: the request could not be built (bad base URL or path, a header name or value
///   with CR, LF or another forbidden byte, a body that could not be encoded). Nothing was sent.
/// - `.unacceptableStatusCode`: the server answered with a status outside the acceptable ones;
///   `statusCode` and `body` hold the answer.
/// - `.decodeError`: the answer could not be turned into the expected type (malformed JSON, HTML,
///   non-UTF-8 text, an empty body or a 204 where a model was expected, a wrong shape). The
///   description names the coding path.
/// - `.envelopeFailure`: the response envelope reported failure (`message` holds its message).
/// - `.transport`: the connection failed (refused, reset, DNS); `underlying` is the system error.
/// - `.timedOut`: the request took longer than its timeout.
/// - `.cancelled`: the request was cancelled.
/// - `.refreshFailed`: refreshing credentials failed (used by authentication plugins).
///
/// - Note: A value type; `Sendable`.
public struct HTTPClientError: Error, CustomStringConvertible, CustomDebugStringConvertible, LocalizedError {
    /// What kind of failure this is.
    public enum Code: String, Hashable, Sendable, CaseIterable {
        /// The response could not be decoded into the expected type.
        case decodeError
        /// The status code is not among the acceptable ones.
        case unacceptableStatusCode
        /// The connection failed: refused, reset, unreachable host, TLS error.
        case transport
        /// The request did not finish within its timeout.
        case timedOut
        /// The request was cancelled before it finished.
        case cancelled
        /// The request could not be built; nothing was sent.
        case invalidRequest
        /// Refreshing the credentials failed.
        case refreshFailed
        /// The response envelope (`{status, message, data}`) reported a failure.
        case envelopeFailure
    }

    /// What kind of failure this is.
    public let code: Code
    /// The response's status code, when a response arrived.
    public let statusCode: Int?
    /// The response's body, when a response arrived.
    public let body: Data?
    /// The error this one wraps: a system networking error, a `DecodingError`, an `EncodingError`.
    public let underlying: Error?
    /// A human-readable explanation (for an envelope failure, the server's message).
    public let message: String?
    /// The URL of the request, when it was built.
    public let url: URL?
    /// The response's headers, when a response arrived (held in memory only; never logged).
    public let headers: [String: String]?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The kind of failure.
    ///   - message: A human-readable explanation.
    ///   - statusCode: The response's status code, if a response arrived.
    ///   - body: The response's body, if a response arrived.
    ///   - url: The request's URL.
    ///   - underlying: The wrapped error.
    ///   - headers: The response's headers, if a response arrived.
    public init(
        _ code: Code,
        message: String? = nil,
        statusCode: Int? = nil,
        body: Data? = nil,
        url: URL? = nil,
        underlying: Error? = nil,
        headers: [String: String]? = nil
    ) {
        self.code = code
        self.message = message
        self.statusCode = statusCode
        self.body = body
        self.url = url
        self.underlying = underlying
        self.headers = headers
    }

    /// The wait the server asked for in a `Retry-After` header, in seconds from `now`: either
    /// delay-seconds or an HTTP date. Nil when there is no such header or it does not parse; never
    /// negative.
    public func retryAfter(now: Date = Date()) -> TimeInterval? {
        guard let headers, let value = HeaderFields.value("Retry-After", in: headers) else { return nil }
        return RetryAfterHeader.seconds(from: value, now: now)
    }

    /// Whether trying again later may succeed: connection failures, time-outs, and the statuses
    /// 408 (Request Timeout), 429 (Too Many Requests) and 5xx.
    ///
    /// Use it as `shouldRetry: { ($0 as? HTTPClientError)?.isTransient ?? false }`.
    public var isTransient: Bool {
        switch code {
        case .transport, .timedOut:
            return true
        case .unacceptableStatusCode:
            guard let statusCode else { return false }
            return statusCode == 408 || statusCode == 429 || (500...599).contains(statusCode)
        case .decodeError, .cancelled, .invalidRequest, .refreshFailed, .envelopeFailure:
            return false
        }
    }

    /// A one-line description: the code, the status, the message, the URL (secrets redacted) and
    /// the underlying error; decoding errors name their coding path.
    public var description: String {
        var parts = ["HTTPClientError.\(code.rawValue)"]
        if let statusCode {
            parts.append("HTTP \(statusCode)")
        }
        if let message, !message.isEmpty {
            parts.append(message)
        }
        if let url {
            parts.append("url: \(Redaction.redactedURLString(url, queryNames: Redaction.defaultQueryNames))")
        }
        if let body {
            parts.append("body: \(body.count) bytes")
        }
        if let underlying {
            parts.append("underlying: \(Self.describe(underlying))")
        }
        return parts.joined(separator: "; ")
    }

    public var debugDescription: String {
        description
    }

    public var errorDescription: String? {
        description
    }

    /// Describes a `DecodingError` with its coding path; other errors as they describe themselves.
    static func describe(_ error: Error) -> String {
        if let decodingError = error as? DecodingError {
            return DecodingErrorDescription.describe(decodingError)
        }
        if let encodingError = error as? EncodingError,
           case .invalidValue(let value, let context) = encodingError {
            let path = DecodingErrorDescription.path(context.codingPath)
            return "cannot encode \(type(of: value)) at \(path): \(context.debugDescription)"
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain {
            return "\(nsError.domain) \(nsError.code) (\(nsError.localizedDescription))"
        }
        return String(describing: error)
    }
}
