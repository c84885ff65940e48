import Foundation

/// Hooks around every request of a client (Moya's plugin shape); each has a no-op default.
///
/// Plugins observe the exchange itself, inside the interceptors (`HTTPInterceptor`). Order per
/// attempt: the interceptors let the request through (signed, admitted), then `prepare` (may change
/// the `URLRequest`; plugins run in the order given to the client), header validation, `willSend`,
/// the exchange, `didReceive` with the result as the caller would see it before decoding (a status
/// outside the acceptable ones is already a `.unacceptableStatusCode` failure), then `process`,
/// which may replace that result before the interceptors decide about it. Every `willSend` is
/// followed by exactly one `didReceive`, also for a cancelled request.
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

    /// A streamed response's body ended — to its end, failed, or left by its reader — with what the
    /// whole stream took (its head's `didReceive` came earlier). Called once per delivered stream.
    func didEndStream(_ end: HTTPStreamEnd, info: HTTPRequestInfo)
}

/// How a streamed body ended, for plugins: its size, its length in time and its failure.
///
/// - Note: A value type; `Sendable`.
public struct HTTPStreamEnd: Sendable {
    /// Every byte of the body received.
    public let bytes: Int
    /// Seconds from the attempt's send to the body's end.
    public let duration: TimeInterval
    /// Why it ended early (`.cancelled` when its reader left); nil when the body ended.
    public let failure: HTTPClientError?

    /// Creates an end.
    public init(bytes: Int, duration: TimeInterval, failure: HTTPClientError?) {
        self.bytes = bytes
        self.duration = duration
        self.failure = failure
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

    public func didEndStream(_ end: HTTPStreamEnd, info: HTTPRequestInfo) {}
}
