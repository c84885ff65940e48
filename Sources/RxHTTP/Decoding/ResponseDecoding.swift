import Foundation

/// What a `ResponseDecoding` may use besides the response: the client's decoder and envelope.
///
/// - Note: A value type; `Sendable`.
public struct ResponseDecodingContext: Sendable {
    /// The client's `JSONDecoder` (`HTTPClient.Configuration.jsonDecoder`).
    public let decoder: JSONDecoder
    /// The client's response envelope, or nil if it has none.
    public let envelope: ResponseEnvelope?
    /// How many times the call sent its request, this answer's attempt included.
    var attempts = 1
    /// Seconds from the call's start to this answer, on the client's clock
    /// (`HTTPClient.Configuration.scheduler`).
    var elapsed: TimeInterval = 0

    /// Creates a context.
    public init(decoder: JSONDecoder, envelope: ResponseEnvelope?) {
        self.decoder = decoder
        self.envelope = envelope
    }
}

/// A kind of response body: turns an accepted response into a value. Conform a new type to add
/// a new kind (XML, protobuf…); the client does not change.
///
/// Built in: `DecodableResponseDecoding` (a `Decodable` model, optionally inside an envelope or
/// at a key path), `StringResponseDecoding` (UTF-8 text), `IgnoringResponseDecoding` (any body,
/// `Void`), `DataResponseDecoding` (the raw bytes). Untyped JSON is `JSONValue`, a `Decodable`.
public protocol ResponseDecoding<Output> {
    /// The decoded value.
    associatedtype Output

    /// Decodes `response`, whose status code was already accepted.
    ///
    /// - Parameters:
    ///   - response: The response.
    ///   - context: The client's decoder and envelope.
    /// - Returns: The value.
    /// - Throws: An `HTTPClientError`, passed on as it is, or any other error, which the client
    ///   wraps as `.decodeError`.
    /// - Note: Called on the client's callback queue.
    func decode(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> Output
}

/// The body as UTF-8 text; any other bytes fail with `.decodeError`.
public struct StringResponseDecoding: ResponseDecoding, Sendable {
    /// Creates the decoding.
    public init() {}

    public func decode(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> String {
        guard let text = String(validating: response.body, as: UTF8.self) else {
            throw HTTPClientError(
                .decodeError,
                message: "the body (\(response.body.count) bytes, \(response.contentType ?? "no content type")) is not valid UTF-8",
                statusCode: response.statusCode, body: response.body, url: response.url
            )
        }
        return text
    }
}

/// Ignores the body, whatever it is (also empty): for calls whose success is all that matters.
public struct IgnoringResponseDecoding: ResponseDecoding, Sendable {
    /// Creates the decoding.
    public init() {}

    /// Accepts any body and decodes nothing.
    ///
    /// - Parameters:
    ///   - response: The response, whose body is ignored.
    ///   - context: Unused.
    public func decode(_ response: HTTPResponse, context: ResponseDecodingContext) throws {}
}

/// The body's bytes as they are.
public struct DataResponseDecoding: ResponseDecoding, Sendable {
    /// Creates the decoding.
    public init() {}

    public func decode(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> Data {
        response.body
    }
}
