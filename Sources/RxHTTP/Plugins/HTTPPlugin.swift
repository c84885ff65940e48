import Foundation

/// Hooks around every request of a client (Moya's plugin shape); each has a no-op default.
///
/// Plugins run as the innermost interceptor of the client's chain (`HTTPInterceptor`), adapted in
/// one place. Order per attempt: the interceptors let the request through (signed, admitted), then
/// `prepare` (may change the `URLRequest`; plugins run in the order given to the client), then
/// `willSend`, the last checks of the headers, the exchange, `didReceive` with the result as the
/// caller would see it before decoding (a status outside the acceptable ones is already a
/// `.unacceptableStatusCode` failure), then `process`, which may replace that result before the
/// interceptors further out decide about it. Every `willSend` is followed by exactly one
/// `didReceive`, also for a cancelled request or one whose headers failed the last checks; every
/// call ends with one `didFinish` (a stream's when its body ends), also a call that was never
/// prepared (a request that could not be built, one answered by the cache or coalescing).
///
/// - Note: `prepare` and `willSend` run on the thread that starts the send (the caller's, the one
///   calling `resume()` for a held request, or the one that ended a wait); `didReceive` and
///   `process` on the thread that finished the exchange (or cancelled it). Plugins are shared by
///   concurrent requests and must be thread-safe.
public protocol HTTPPlugin: Sendable {
    /// Returns the request to send, e.g. with an added header.
    ///
    /// - Parameters:
    ///   - request: The request as built so far.
    ///   - info: What is known about the request.
    /// - Returns: The request to send.
    func prepare(_ request: URLRequest, info: HTTPRequestInfo) -> URLRequest

    /// Called just before the request goes to the transport.
    func willSend(_ request: URLRequest, info: HTTPRequestInfo)

    /// Called when the exchange ended: with the response, or with the error (`.cancelled` too).
    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, request: URLRequest, info: HTTPRequestInfo)

    /// Returns the result to decode and deliver; may turn a failure into a response or back.
    func process(_ result: Result<HTTPResponse, HTTPClientError>, info: HTTPRequestInfo) -> Result<HTTPResponse, HTTPClientError>

    /// The call is over — delivered, failed, cancelled; a stream when its body ended — with what the
    /// whole call took. Called once per call, after the last `didReceive`, before the completion.
    func didFinish(_ summary: HTTPCallSummary, info: HTTPRequestInfo)
}

/// How a call ended, for plugins (and the same as its `.completed` event).
///
/// - Note: A value type; `Sendable`.
public struct HTTPCallSummary: Sendable {
    /// The status delivered, or the failure.
    public let outcome: Result<Int, HTTPClientError>
    /// Seconds from the call's start to its end (a stream's: its body's end), retries and waits
    /// included.
    public let duration: TimeInterval
    /// How many times the request went to the transport.
    public let attempts: Int
    /// The answer's body bytes (a stream's: every byte of it), when there was one.
    public let bodyBytes: Int?
    /// Whether the body was streamed.
    public let isStream: Bool
    /// For a success, where the answer came from (the network, or the client's `HTTPCache`).
    public let cacheStatus: CacheStatus?
    /// The request's full URL (nil when it could not be built), also for a call that never reached
    /// the transport (a cache hit, a refusal). Not redacted: redact it before it is logged.
    public let url: URL?

    /// Creates a summary.
    public init(
        outcome: Result<Int, HTTPClientError>, duration: TimeInterval, attempts: Int, bodyBytes: Int?, isStream: Bool,
        cacheStatus: CacheStatus? = nil, url: URL? = nil
    ) {
        self.url = url
        self.outcome = outcome
        self.duration = duration
        self.attempts = attempts
        self.bodyBytes = bodyBytes
        self.isStream = isStream
        self.cacheStatus = cacheStatus
    }
}

extension HTTPPlugin {
    public func prepare(_ request: URLRequest, info: HTTPRequestInfo) -> URLRequest {
        request
    }

    public func willSend(_ request: URLRequest, info: HTTPRequestInfo) {}

    public func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, request: URLRequest, info: HTTPRequestInfo) {}

    public func process(_ result: Result<HTTPResponse, HTTPClientError>, info: HTTPRequestInfo) -> Result<HTTPResponse, HTTPClientError> {
        result
    }

    public func didFinish(_ summary: HTTPCallSummary, info: HTTPRequestInfo) {}
}
