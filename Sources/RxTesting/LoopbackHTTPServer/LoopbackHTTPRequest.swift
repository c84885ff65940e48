import Foundation

/// One request as `LoopbackHTTPServer` received it: what route handlers see and the request log holds.
///
/// - Note: A plain value; thread-safe.
public struct LoopbackHTTPRequest: Sendable, Equatable, CustomStringConvertible {
    /// The method token, such as `"GET"`.
    public var method: LoopbackHTTPMethod
    /// The request target exactly as sent on the request line (path and query, still encoded).
    public var target: String
    /// The path as sent, without the query: `"/search"` for `/search?q=a%20b`.
    public var path: String
    /// The path with percent-escapes decoded (equal to `path` when it has none or is not valid UTF-8).
    public var decodedPath: String
    /// The query as sent, without the `?`, or nil if the target had no `?`.
    public var query: String?
    /// The query split on `&` and `=`, each name and value percent-decoded (`+` stays `+`), in order.
    /// A bare `flag` has a nil value; `flag=` has an empty one.
    public var queryItems: [URLQueryItem]
    /// The protocol version from the request line, such as `"HTTP/1.1"`.
    public var version: String
    /// The header fields in order.
    public var headers: LoopbackHTTPHeaders
    /// The body, after removing chunked framing; empty if there was none.
    public var body: Data
    /// Which connection the request came in on, counted from 1 since the server was created; requests
    /// on the same keep-alive connection share it.
    public var connectionID: Int

    /// Creates a request value (the server builds these; tests may build them to call handlers).
    public init(
        method: LoopbackHTTPMethod,
        target: String,
        version: String = "HTTP/1.1",
        headers: LoopbackHTTPHeaders = [:],
        body: Data = Data(),
        connectionID: Int = 0
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.connectionID = connectionID
        let questionMark = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let pathPart = questionMark.map { String(target[..<$0]) } ?? target
        let queryPart = questionMark.map { String(target[target.index(after: $0)...]) }
        self.path = pathPart
        self.decodedPath = pathPart.removingPercentEncoding ?? pathPart
        self.query = queryPart
        self.queryItems = queryPart.map(Self.parseQuery) ?? []
    }

    /// The first value of the header named `name` (case-insensitive), or nil.
    public func header(_ name: String) -> String? { headers[name] }

    /// The value of the first query item named `name` (nil if absent or valueless).
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value ?? nil
    }

    /// The body decoded as UTF-8, or nil if it is not valid UTF-8.
    public var bodyString: String? { String(data: body, encoding: .utf8) }

    /// `METHOD target` and the body size.
    public var description: String { "\(method.rawValue) \(target) (\(body.count) body bytes)" }

    private static func parseQuery(_ query: String) -> [URLQueryItem] {
        guard !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            if let equals = pair.firstIndex(of: "=") {
                let name = String(pair[..<equals])
                let value = String(pair[pair.index(after: equals)...])
                return URLQueryItem(name: name.removingPercentEncoding ?? name, value: value.removingPercentEncoding ?? value)
            }
            let name = String(pair)
            return URLQueryItem(name: name.removingPercentEncoding ?? name, value: nil)
        }
    }
}
