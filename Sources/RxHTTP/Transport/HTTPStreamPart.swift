import Foundation

/// The status line and headers of a response whose body is streamed.
///
/// - Note: A value type; `Sendable`.
public struct HTTPResponseHead: Sendable, Equatable {
    /// The status code.
    public let statusCode: Int
    /// The headers: in order, repeated fields kept; the subscript ignores case.
    public let headers: HTTPHeaders
    /// The URL that answered (after redirects).
    public let url: URL?

    /// Creates a head.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The headers.
    ///   - url: The URL that answered.
    public init(statusCode: Int, headers: HTTPHeaders = [:], url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }

    /// Creates a head whose headers are a dictionary (one line per name, sorted by name).
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - headers: The headers.
    ///   - url: The URL that answered.
    public init(statusCode: Int, headers: [String: String], url: URL? = nil) {
        self.init(statusCode: statusCode, headers: HTTPHeaders(headers), url: url)
    }

    /// The value of the header `name`, compared case-insensitively (see `HTTPHeaders`' subscript).
    public func value(forHTTPHeaderField name: String) -> String? {
        headers[name]
    }
}

/// One part of a streamed response: the head, then body chunks as they arrive, then the end.
public enum HTTPStreamPart: Sendable, Equatable {
    /// The status line and headers; always first.
    case head(HTTPResponseHead)
    /// Body bytes, in order.
    case body(Data)
    /// The body is complete.
    case end
}
