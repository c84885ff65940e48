/// An HTTP request method as a route matches it, with `.any` matching every method.
///
/// Methods compare case-sensitively, as HTTP defines them (`"GET"` is not `"get"`). Any token works:
/// `LoopbackHTTPMethod("PROPFIND")` or the string literal `"PROPFIND"`.
///
/// - Note: A plain value; thread-safe.
public struct LoopbackHTTPMethod: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    /// The method token as sent on the request line, or `"*"` for `.any`.
    public let rawValue: String

    /// Creates a method from its token.
    ///
    /// - Parameter rawValue: The token, such as `"GET"`; `"*"` means any method.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from its token.
    ///
    /// - Parameter rawValue: The token, such as `"GET"`; `"*"` means any method.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    /// Creates a method from a string literal such as `"PROPFIND"`.
    public init(stringLiteral value: String) { self.rawValue = value }

    /// The method token.
    public var description: String { rawValue }

    /// Matches every method in a route.
    public static let any = LoopbackHTTPMethod("*")
    /// `GET`
    public static let get = LoopbackHTTPMethod("GET")
    /// `HEAD` (a HEAD request with no HEAD route is answered by the GET route, without the body).
    public static let head = LoopbackHTTPMethod("HEAD")
    /// `POST`
    public static let post = LoopbackHTTPMethod("POST")
    /// `PUT`
    public static let put = LoopbackHTTPMethod("PUT")
    /// `PATCH`
    public static let patch = LoopbackHTTPMethod("PATCH")
    /// `DELETE`
    public static let delete = LoopbackHTTPMethod("DELETE")
    /// `OPTIONS`
    public static let options = LoopbackHTTPMethod("OPTIONS")
}
