import Foundation

/// Bytes sent as they are, with a content type.
public struct RawBody: RequestBody, Sendable {
    /// The bytes sent.
    public let data: Data
    /// Their media type.
    public let contentType: String

    /// Creates a raw body.
    ///
    /// - Parameters:
    ///   - data: The bytes to send.
    ///   - contentType: Their media type; default `application/octet-stream`.
    public init(_ data: Data, contentType: String = "application/octet-stream") {
        self.data = data
        self.contentType = contentType
    }

    public func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody? {
        HTTPBody(data: data, contentType: contentType)
    }
}

extension RequestBody where Self == RawBody {
    /// Bytes sent as they are.
    public static func raw(_ data: Data, contentType: String = "application/octet-stream") -> RawBody {
        RawBody(data, contentType: contentType)
    }
}
