/// An HTTP request method: `.get`, `.post`, … or any other token (`HTTPMethod("PROPFIND")`).
///
/// - Note: A value type; `Sendable`.
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method as sent on the wire, e.g. `GET`.
    public let rawValue: String

    /// Creates a method from its name as sent on the wire (case-sensitive; standard methods are
    /// upper case). A name that is not an HTTP token fails the request with `.invalidRequest`.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Creates a method from its name as sent on the wire.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// A method written as a string literal, as it goes on the wire: `"PURGE"`.
    ///
    /// - Parameter value: The method token, case-sensitive.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// The method as it goes on the wire.
    public var description: String {
        rawValue
    }

    /// `GET`
    public static let get = HTTPMethod("GET")
    /// `HEAD`
    public static let head = HTTPMethod("HEAD")
    /// `POST`
    public static let post = HTTPMethod("POST")
    /// `PUT`
    public static let put = HTTPMethod("PUT")
    /// `PATCH`
    public static let patch = HTTPMethod("PATCH")
    /// `DELETE`
    public static let delete = HTTPMethod("DELETE")
    /// `OPTIONS`
    public static let options = HTTPMethod("OPTIONS")
    /// `TRACE`
    public static let trace = HTTPMethod("TRACE")

    /// Whether `requestObject`'s parameters go in the query string (GET, HEAD, DELETE) rather
    /// than in the body.
    public var encodesParametersInQuery: Bool {
        self == .get || self == .head || self == .delete
    }
}
