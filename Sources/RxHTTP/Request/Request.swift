import Foundation

/// A request described as a type: where it goes, what it sends, and what it answers
/// (`Response`). Send it with `client.request(_:completion:)` or `client.rx.request(_:)`.
///
/// Every requirement but `path` has a default (in a public extension), so a request states only
/// what differs:
///
/// ```swift
/// struct GetUser: Request {
///     typealias Response = User          // any Decodable, String, Data, Void or JSONValue
///     let id: Int
///     var path: String { "/users/\(id)" }
/// }
/// struct Rename: Request {
///     typealias Response = Void
///     let id: Int, name: String
///     var path: String { "/users/\(id)" }
///     var method: HTTPMethod { .patch }
///     var body: any RequestBody { .json(["name": name]) }
/// }
/// ```
///
/// A `Response` of another type needs its own `decodeResponse` (for instance from a new
/// `ResponseDecoding`). Adopt `AccessTokenAuthorizable` to have `AccessTokenPlugin` sign it.
public protocol Request {
    /// The type the response is decoded into.
    associatedtype Response

    /// The path under the client's base URL; may carry a query (`"/search?q=swift"`), which is
    /// kept and followed by `query`. See `HTTPClient` for how paths are joined and encoded.
    var path: String { get }

    /// The method; default `.get`.
    var method: HTTPMethod { get }

    /// Headers of this request, over the client's default headers; default none.
    var headers: [String: String] { get }

    /// Parameters, as `requestObject(path:parameters:)` takes them: nil values are dropped, and
    /// they go where `parameterEncoding` says (by default the query for GET, HEAD and DELETE, a
    /// JSON object body otherwise); default none. A request with a `body` of its own and
    /// parameters that go in the body fails with `.invalidRequest`.
    var parameters: [String: Any?] { get }

    /// Where `parameters` go; default `.automatic`.
    var parameterEncoding: ParameterEncoding { get }

    /// Parameters that always go in the query string, whatever the method, after the path's own
    /// query and any `parameters` sent there; nil values are dropped; default none.
    var query: [String: Any?] { get }

    /// The body; default `EmptyBody()`.
    var body: any RequestBody { get }

    /// The time-out in seconds for the whole request; default nil (the client's).
    var timeout: TimeInterval? { get }

    /// A base URL that replaces the client's for this request (another server); default nil.
    var baseURL: URL? { get }

    /// Whether this request is sent even while the client is suspended (a token refresh must not
    /// wait behind the queue it suspended); default false.
    var bypassesSuspension: Bool { get }

    /// Whether the client's authenticator signs this request (and replays it once after an
    /// unauthorized answer); default true. Ignored by a client without an authenticator.
    var requiresAuthentication: Bool { get }

    /// Whether the request may be sent again after it reached the server (see `Idempotency`);
    /// default `.byMethod`. `.keyed` makes the client send one `Idempotency-Key` per call.
    var idempotency: Idempotency { get }

    /// How this request uses the client's `HTTPCache` (`Configuration(cache:)`); default
    /// `.useProtocol` (RFC 9111). Without a cache, every policy loads from the network.
    var cachePolicy: CachePolicy { get }

    /// How this request is retried; default `RetryPolicy.client` (the client's
    /// `configuration.retryPolicy`). A request that states its own is retried by it instead,
    /// whether or not it adopts `RetryableRequest` (which only defaults it to three attempts).
    var retryPolicy: RetryPolicy { get }

    /// Turns an accepted response into `Response`. Defaults exist for `Decodable` (with the
    /// client's envelope, if any), `String`, `Data` and `Void`.
    ///
    /// - Throws: An `HTTPClientError`, passed on as it is, or any other error, which the client
    ///   wraps as `.decodeError`.
    /// - Note: Called on the client's callback queue.
    func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> Response
}

extension Request {
    public var method: HTTPMethod { .get }
    public var headers: [String: String] { [:] }
    public var parameters: [String: Any?] { [:] }
    public var parameterEncoding: ParameterEncoding { .automatic }
    public var query: [String: Any?] { [:] }
    public var body: any RequestBody { EmptyBody() }
    public var timeout: TimeInterval? { nil }
    public var baseURL: URL? { nil }
    public var bypassesSuspension: Bool { false }
    public var idempotency: Idempotency { .byMethod }
    public var requiresAuthentication: Bool { true }
    public var cachePolicy: CachePolicy { .useProtocol }
    /// The client's (`RetryPolicy.client`).
    public var retryPolicy: RetryPolicy { .client }
}

extension Request where Response: Decodable {
    /// Decodes the model with the client's decoder, inside the client's envelope if it has one.
    public func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> Response {
        try DecodableResponseDecoding<Response>().decode(response, context: context)
    }
}

extension Request where Response == String {
    /// The body as UTF-8 text.
    public func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> String {
        try StringResponseDecoding().decode(response, context: context)
    }
}

extension Request where Response == Data {
    /// The body's bytes.
    public func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> Data {
        try DataResponseDecoding().decode(response, context: context)
    }
}

extension Request where Response == Void {
    /// Ignores the body.
    public func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws {
        try IgnoringResponseDecoding().decode(response, context: context)
    }
}
