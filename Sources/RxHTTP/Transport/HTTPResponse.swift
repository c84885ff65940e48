import Foundation

/// A response as it came off the wire: status, headers and the whole body.
///
/// - Note: A value type; `Sendable`.
public struct HTTPResponse: Sendable {
    /// The status code, e.g. 200.
    public let statusCode: Int
    /// The response headers as received: in order, repeated fields kept (`values(for:)`); the
    /// subscript and `value(forHTTPHeaderField:)` ignore case.
    public let headers: HTTPHeaders
    /// The body; empty if there was none.
    public let body: Data
    /// The URL of the response (after redirects).
    public let url: URL?
    /// Where it came from: the network, or the client's `HTTPCache` (fresh, revalidated, stale).
    public var cacheStatus: CacheStatus = .network

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The headers.
    ///   - body: The body.
    ///   - url: The URL it came from.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data(), url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.url = url
    }

    /// Creates a response whose headers are a dictionary (one line per name, sorted by name).
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The headers.
    ///   - body: The body.
    ///   - url: The URL it came from.
    public init(statusCode: Int, headers: [String: String], body: Data = Data(), url: URL? = nil) {
        self.init(statusCode: statusCode, headers: HTTPHeaders(headers), body: body, url: url)
    }

    /// A response with `head`'s status, headers and URL, and `body`.
    init(_ head: HTTPResponseHead, body: Data = Data()) {
        self.init(statusCode: head.statusCode, headers: head.headers, body: body, url: head.url)
    }

    /// Creates a response from what URLSession delivered.
    public init(_ response: HTTPURLResponse, body: Data) {
        self.init(statusCode: response.statusCode, headers: Self.headers(of: response), body: body, url: response.url)
    }

    /// The headers of what URLSession delivered. Not cheap (Foundation hands them over as
    /// `[AnyHashable: Any]`, one dynamic cast per name and value): convert once per response.
    /// Foundation has already combined a repeated field into one line (with ", "), `Set-Cookie`
    /// included: URLSession cannot give the lines back.
    static func headers(of response: HTTPURLResponse) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (key, value) in response.allHeaderFields {
            // Foundation's keys and values are Strings: the casts avoid `String(describing:)`.
            headers.add(name: key.base as? String ?? String(describing: key), value: value as? String ?? String(describing: value))
        }
        return headers
    }

    /// The value of the header `name`, compared case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? {
        headers[name]
    }

    /// The `Content-Type` header, if any.
    public var contentType: String? {
        value(forHTTPHeaderField: "Content-Type")
    }
}
