import Foundation

/// The client's own request value: what an interceptor prepares and a transport sends — method,
/// URL, header list, body and time-out. No `URLRequest` on the way: `URLSessionTransport` builds
/// one from it, the AsyncHTTPClient transport builds its own request from the same fields.
///
/// ```swift
/// var request = HTTPTransportRequest(method: .post, url: URL(string: "https://api.example.com/orders")!)
/// request.headers.add(name: "Content-Type", value: "application/json")
/// request.body = .bytes(Data(#"{"sku":"A1"}"#.utf8))
/// ```
///
/// `setValue(_:forHTTPHeaderField:)`, `value(forHTTPHeaderField:)`, `httpMethod` and `httpBody`
/// read and write it as they would a `URLRequest`, so that an interceptor written for one moves
/// over by its type name; `init(_:)` and `urlRequest` convert where Foundation is needed.
///
/// - Note: A value type; `Sendable`. Its description redacts the URL's credentials and query
///   values and the secret header fields.
public struct HTTPTransportRequest: Sendable, Hashable, CustomStringConvertible {
    /// What a request carries after its head.
    ///
    /// - Note: A value type; `Sendable`.
    public enum Body: Sendable, Hashable {
        /// No body.
        case empty
        /// These bytes.
        case bytes(Data)
        /// A file's bytes, read from its start by the transport as it sends them (every attempt
        /// anew), never whole in memory; `Content-Length` is its length.
        case file(HTTPFileBody)

        /// The bytes, or nil for `.empty` and a file.
        public var data: Data? {
            switch self {
            case .empty, .file: return nil
            case .bytes(let data): return data
            }
        }

        /// The number of bytes the body holds (a file's length).
        public var count: Int64 {
            switch self {
            case .empty: return 0
            case .bytes(let data): return Int64(data.count)
            case .file(let file): return file.length
            }
        }
    }

    /// The default time-out, as `URLRequest`'s: 60 seconds.
    public static let defaultTimeoutInterval: TimeInterval = 60

    /// The method, e.g. `GET`.
    public var method: HTTPMethod
    /// The absolute URL the request goes to.
    public var url: URL
    /// The header fields, in the order they are sent; repeated fields kept.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body
    /// How long the whole exchange may take, in seconds: the transport fails it with
    /// `HTTPClientError(.timedOut)` when it passes (a stream: the wait for its head).
    public var timeoutInterval: TimeInterval

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The method; `GET` by default.
    ///   - url: The absolute URL.
    ///   - headers: The header fields, sent in this order.
    ///   - body: The body; none by default.
    ///   - timeoutInterval: The time-out over the whole exchange, in seconds.
    public init(
        method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = HTTPHeaders(), body: Body = .empty,
        timeoutInterval: TimeInterval = HTTPTransportRequest.defaultTimeoutInterval
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeoutInterval = timeoutInterval
    }

    /// The file the body streams from, if it does.
    var fileBody: HTTPFileBody? {
        if case .file(let file) = body { return file }
        return nil
    }

    // MARK: URLRequest's spelling

    /// The method's name, as `URLRequest.httpMethod` spells it.
    public var httpMethod: String {
        get { method.rawValue }
        set { method = HTTPMethod(newValue) }
    }

    /// The body's bytes, as `URLRequest.httpBody`: nil for no body; setting nil removes it.
    public var httpBody: Data? {
        get { body.data }
        set { body = newValue.map(Body.bytes) ?? .empty }
    }

    /// The field `name` (any case) as one value: `headers[name]`.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The value, or nil when the field is absent.
    public func value(forHTTPHeaderField name: String) -> String? {
        headers[name]
    }

    /// Sets the field `name` to `value` (one line, where the first was), or removes it for nil —
    /// as `URLRequest.setValue(_:forHTTPHeaderField:)` does.
    ///
    /// - Parameters:
    ///   - value: The value, or nil to remove the field.
    ///   - name: The field name.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) {
        if let value {
            headers.replaceOrAdd(name: name, value: value)
        } else {
            headers.remove(name)
        }
    }

    /// Method, redacted URL, redacted headers and the body's size.
    public var description: String {
        "\(method) \(Redaction.standard.url(url)) \(headers) (\(body.count) bytes)"
    }
}
