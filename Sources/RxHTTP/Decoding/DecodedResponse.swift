import Foundation

/// A decoded value with the response it came from: status, headers, URL, and how the call went.
///
/// ```swift
/// client.rx.response(GetUser(id: 1))          // Single<DecodedResponse<User>>
///     .subscribe(onSuccess: { print($0.value.name, $0.statusCode, $0.value(forHTTPHeaderField: "ETag") ?? "-") })
/// ```
///
/// - Note: A value type; `Sendable` when `Value` is.
public struct DecodedResponse<Value> {
    /// The decoded value.
    public let value: Value
    /// The status code.
    public let statusCode: Int
    /// The response headers: in order, repeated fields kept (`values(for:)`); the subscript
    /// ignores case.
    public let headers: HTTPHeaders
    /// The URL that answered (after redirects).
    public let url: URL?
    /// Seconds from the call's start to this answer, retries and waits included.
    public let duration: TimeInterval
    /// How many times the request was sent.
    public let attempts: Int
    /// Where the answer came from: the network, or the client's `HTTPCache`.
    public let cacheStatus: CacheStatus

    /// Creates a decoded response.
    public init(
        value: Value, statusCode: Int, headers: HTTPHeaders, url: URL?, duration: TimeInterval, attempts: Int,
        cacheStatus: CacheStatus = .network
    ) {
        self.value = value
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
        self.duration = duration
        self.attempts = attempts
        self.cacheStatus = cacheStatus
    }

    /// Creates a decoded response whose headers are a dictionary (one line per name).
    public init(
        value: Value, statusCode: Int, headers: [String: String], url: URL?, duration: TimeInterval, attempts: Int,
        cacheStatus: CacheStatus = .network
    ) {
        self.init(
            value: value, statusCode: statusCode, headers: HTTPHeaders(headers), url: url, duration: duration,
            attempts: attempts, cacheStatus: cacheStatus)
    }

    /// The value of the header `name`, compared case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? {
        headers[name]
    }
}

extension DecodedResponse: Sendable where Value: Sendable {}

extension Request where Response == HTTPResponse {
    /// The response itself: status, headers and body, undecoded.
    public func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> HTTPResponse {
        response
    }
}

extension HTTPClient {
    /// Sends `request` and delivers its decoded `Response` with the status, headers and timing of
    /// the answer; see `request(_:completion:)` for everything else.
    ///
    /// - Note: Thread-safe; `completion` runs on the callback queue, exactly once.
    @discardableResult
    public func response<R: Request>(
        _ request: R,
        completion: @escaping (Result<DecodedResponse<R.Response>, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        let parts = requestParts(for: request)
        let policy = request.retryPolicy.resolved(client: configuration.retryPolicy)
        return send(parts, policy: policy, decode: { response, context in
            DecodedResponse(
                value: try request.decodeResponse(response, context: context), statusCode: response.statusCode,
                headers: response.headers, url: response.url, duration: context.elapsed, attempts: context.attempts,
                cacheStatus: response.cacheStatus
            )
        }, completion: completion)
    }
}
