import Foundation

/// The status line and headers of a response whose body is streamed.
///
/// - Note: A value type; `Sendable`.
public struct HTTPResponseHead: Sendable, Equatable {
    /// The status code.
    public let statusCode: Int
    /// The headers (look them up with `value(forHTTPHeaderField:)`).
    public let headers: [String: String]
    /// The URL that answered (after redirects).
    public let url: URL?

    /// Creates a head.
    public init(statusCode: Int, headers: [String: String] = [:], url: URL? = nil) {
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }

    /// The value of the header `name`, compared case-insensitively.
    public func value(forHTTPHeaderField name: String) -> String? {
        HeaderFields.value(name, in: headers)
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
