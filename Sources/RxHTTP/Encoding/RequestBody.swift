import Foundation

/// The bytes of a request body and their media type.
///
/// - Note: A value type; `Sendable`.
public struct HTTPBody: Sendable, Equatable {
    /// The bytes sent.
    public var data: Data
    /// The `Content-Type` sent with them, unless the request sets its own.
    public var contentType: String?

    /// Creates a body.
    ///
    /// - Parameters:
    ///   - data: The bytes to send.
    ///   - contentType: Their media type, e.g. `application/json`.
    public init(data: Data, contentType: String?) {
        self.data = data
        self.contentType = contentType
    }
}

/// A kind of request body. Conform a new type to add a new kind; the client does not change.
///
/// Built in: `EmptyBody` (none), `JSONBody` (an `Encodable` value), `JSONObjectBody` (a dictionary
/// or array through `JSONSerialization`), `FormURLEncodedBody`, `RawBody` (bytes with a content
/// type) and `MultipartFormBody`.
public protocol RequestBody {
    /// Produces the bytes to send, or nil for no body.
    ///
    /// - Parameter encoder: The client's `JSONEncoder` (`HTTPClient.Configuration.jsonEncoder`).
    /// - Returns: The body, or nil to send none.
    /// - Throws: Any error; the request then fails with `.invalidRequest` wrapping it, and nothing
    ///   is sent.
    /// - Note: Called on the thread that starts the request.
    func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody?
}

/// No body.
public struct EmptyBody: RequestBody, Sendable {
    /// Creates an empty body.
    public init() {}

    public func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody? {
        nil
    }
}

extension RequestBody where Self == EmptyBody {
    /// No body.
    public static var none: EmptyBody { EmptyBody() }
}
