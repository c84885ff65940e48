import Foundation

/// One step of a streamed body (`LoopbackHTTPResponse.stream`).
public enum LoopbackStreamStep: Sendable, Equatable {
    /// Writes these bytes.
    case write(Data)
    /// Writes these bytes `times` times (a big stream without holding it in memory).
    case repeatWrite(Data, times: Int)
    /// Sleeps (real time; `stop()` ends it early).
    case pause(TimeInterval)
    /// Closes the connection at once, mid-stream.
    case drop

    /// Writes `text` as UTF-8.
    public static func text(_ text: String) -> LoopbackStreamStep { .write(Data(text.utf8)) }
}

/// A scripted response of `LoopbackHTTPServer`: status, headers and body, and how to misbehave
/// while sending them (a delay, chunked or trickled bodies, a connection dropped mid-response).
///
/// Build one with a factory and refine it with modifiers:
/// ```swift
/// .json(#"{"id":42}"#)
/// .status(503).delayed(by: 0.1)
/// .text("hello").chunked(chunkSize: 2, delayBetweenChunks: 0.01)
/// .json(bigBody).closingConnection(afterBodyBytes: 100)
/// .dropConnection
/// ```
/// The server adds `Content-Length` (or `Transfer-Encoding: chunked`) and `Connection` unless the
/// headers already have them, so a test can also send lying framing headers on purpose. Responses to
/// HEAD requests, and 1xx, 204 and 304 responses, never carry a body.
///
/// - Note: A plain value; thread-safe.
public struct LoopbackHTTPResponse: Sendable, Equatable {
    /// How the body goes on the wire.
    public enum Transfer: Sendable, Equatable {
        /// All at once after a `Content-Length` header.
        case contentLength
        /// `Transfer-Encoding: chunked`, in chunks of at most `chunkSize` bytes, sleeping
        /// `delayBetweenChunks` seconds between chunks.
        case chunked(chunkSize: Int, delayBetweenChunks: TimeInterval)
        /// After a `Content-Length` header, one byte at a time, sleeping `delayPerByte` seconds
        /// before each byte after the first.
        case trickle(delayPerByte: TimeInterval)
        /// The body bytes verbatim as the whole response (no status line or headers are added),
        /// then the connection closes: for testing clients against malformed responses.
        case raw
        /// A body produced over time by `steps` (writes, pauses, a dropped connection) instead of
        /// `body`: `Transfer-Encoding: chunked` (one chunk per write) when `chunked`, else no framing
        /// and the connection closes at the end (a close-delimited body). The connection always
        /// closes after a stream.
        case stream(steps: [LoopbackStreamStep], chunked: Bool)
        /// A WebSocket upgrade (RFC 6455): `101 Switching Protocols` with the handshake's headers
        /// (`protocol` as `Sec-WebSocket-Protocol` if given), then `steps`; a request that is not a
        /// WebSocket upgrade gets `400`. The connection ends with the WebSocket.
        case webSocket(steps: [LoopbackWebSocketStep], protocol: String?)
    }

    /// How the response ends.
    public enum Ending: Sendable, Equatable {
        /// The response is sent completely; the connection stays open unless either side asked to close.
        case complete
        /// The connection is closed without sending a single byte (after any delay).
        case closeBeforeResponse
        /// The head and the first `count` bytes of the body are sent, then the connection is closed.
        case closeAfterBodyBytes(Int)
    }

    /// The status code.
    public var status: Int
    /// The reason phrase; nil uses the standard one for `status`.
    public var reason: String?
    /// The header fields to send, in order.
    public var headers: LoopbackHTTPHeaders
    /// The body (for `.raw` transfer, the whole response).
    public var body: Data
    /// Seconds to wait (real time) before sending anything.
    public var delay: TimeInterval
    /// How the body goes on the wire.
    public var transfer: Transfer
    /// Whether the response is sent completely or the connection is dropped part-way.
    public var ending: Ending

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: The header fields.
    ///   - body: The body bytes.
    public init(status: Int = 200, headers: LoopbackHTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.reason = nil
        self.headers = headers
        self.body = body
        self.delay = 0
        self.transfer = .contentLength
        self.ending = .complete
    }

    // MARK: Factories

    /// A response with the status `code` and no body.
    ///
    /// - Parameter code: The status code.
    /// - Returns: The response.
    public static func status(_ code: Int) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(status: code)
    }

    /// A `text/plain; charset=utf-8` response.
    ///
    /// - Parameters:
    ///   - text: The body, sent as UTF-8.
    ///   - status: The status code.
    /// - Returns: The response.
    public static func text(_ text: String, status: Int = 200) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Data(text.utf8))
    }

    /// An `application/json` response whose body is `json` as UTF-8 (sent as is, not validated).
    ///
    /// - Parameters:
    ///   - json: The body, sent as UTF-8; malformed JSON is allowed on purpose.
    ///   - status: The status code.
    /// - Returns: The response.
    public static func json(_ json: String, status: Int = 200) -> LoopbackHTTPResponse {
        .json(Data(json.utf8), status: status)
    }

    /// An `application/json` response whose body is `data` (sent as is, not validated).
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - status: The status code.
    /// - Returns: The response.
    public static func json(_ data: Data, status: Int = 200) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: data)
    }

    /// An `application/json` response with `value` encoded by `encoder`.
    ///
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - encoder: The encoder to use.
    ///   - status: The status code.
    /// - Returns: The response.
    /// - Throws: The encoder's error (a route handler that throws answers 500).
    public static func json<Value: Encodable>(
        encoding value: Value,
        encoder: JSONEncoder = JSONEncoder(),
        status: Int = 200
    ) throws -> LoopbackHTTPResponse {
        .json(try encoder.encode(value), status: status)
    }

    /// A response with `data` as body and the given `Content-Type`.
    ///
    /// - Parameters:
    ///   - data: The body.
    ///   - contentType: The `Content-Type` header value.
    ///   - status: The status code.
    /// - Returns: The response.
    public static func data(
        _ data: Data,
        contentType: String = "application/octet-stream",
        status: Int = 200
    ) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(status: status, headers: ["Content-Type": contentType], body: data)
    }

    /// A streamed body: written step by step over real time (see `LoopbackStreamStep`).
    ///
    /// - Parameters:
    ///   - steps: What to write, when to pause, whether to drop the connection.
    ///   - contentType: The `Content-Type`.
    ///   - chunked: `Transfer-Encoding: chunked` (true) or a close-delimited body.
    /// - Returns: The response.
    public static func stream(_ steps: [LoopbackStreamStep], contentType: String = "application/octet-stream", chunked: Bool = true) -> LoopbackHTTPResponse {
        var response = LoopbackHTTPResponse(status: 200, headers: ["Content-Type": contentType])
        response.transfer = .stream(steps: steps, chunked: chunked)
        return response
    }

    /// Accepts a WebSocket upgrade and runs `steps` on the connection; see `LoopbackWebSocketStep`.
    ///
    /// - Parameters:
    ///   - steps: The script, after the handshake.
    ///   - protocol: The subprotocol to answer with (`Sec-WebSocket-Protocol`), if any.
    public static func webSocket(_ steps: [LoopbackWebSocketStep], protocol: String? = nil) -> LoopbackHTTPResponse {
        var response = LoopbackHTTPResponse(status: 101)
        response.transfer = .webSocket(steps: steps, protocol: `protocol`)
        return response
    }

    /// A `text/event-stream` written step by step (Server-Sent Events).
    public static func eventStream(_ steps: [LoopbackStreamStep], chunked: Bool = true) -> LoopbackHTTPResponse {
        .stream(steps, contentType: "text/event-stream", chunked: chunked)
    }

    /// Writes `bytes` verbatim as the whole response and closes the connection.
    ///
    /// - Parameter bytes: Everything the client will read, status line and headers included.
    /// - Returns: The response.
    public static func raw(_ bytes: Data) -> LoopbackHTTPResponse {
        var response = LoopbackHTTPResponse(body: bytes)
        response.transfer = .raw
        return response
    }

    /// Writes `text` as UTF-8 verbatim as the whole response and closes the connection.
    public static func raw(_ text: String) -> LoopbackHTTPResponse { .raw(Data(text.utf8)) }

    /// `200 OK` with no body.
    public static let ok = LoopbackHTTPResponse(status: 200)
    /// `204 No Content`.
    public static let noContent = LoopbackHTTPResponse(status: 204)
    /// `304 Not Modified`.
    public static let notModified = LoopbackHTTPResponse(status: 304)
    /// `404 Not Found` with a short text body: what unknown routes get by default.
    public static let notFound = LoopbackHTTPResponse.text("Not Found", status: 404)
    /// Closes the connection without sending a byte.
    public static let dropConnection: LoopbackHTTPResponse = {
        var response = LoopbackHTTPResponse(status: 200)
        response.ending = .closeBeforeResponse
        return response
    }()

    // MARK: Modifiers

    /// This response with another status code.
    ///
    /// - Parameters:
    ///   - code: The status code.
    ///   - reason: The reason phrase; nil uses the standard one.
    /// - Returns: The modified copy.
    public func withStatus(_ code: Int, reason: String? = nil) -> LoopbackHTTPResponse {
        var copy = self
        copy.status = code
        copy.reason = reason
        return copy
    }

    /// This response with the header `name` set to `value` (replacing fields of that name).
    ///
    /// - Parameters:
    ///   - name: The field name (compared case-insensitively).
    ///   - value: The field value, written verbatim.
    /// - Returns: The modified copy.
    public func withHeader(_ name: String, _ value: String) -> LoopbackHTTPResponse {
        var copy = self
        copy.headers[name] = value
        return copy
    }

    /// This response sent after waiting `seconds` (real time; keep it to a few hundred ms in tests).
    ///
    /// - Parameter seconds: The delay; `stop()` ends it early and closes the connection.
    /// - Returns: The modified copy.
    public func delayed(by seconds: TimeInterval) -> LoopbackHTTPResponse {
        var copy = self
        copy.delay = seconds
        return copy
    }

    /// This response with a `Transfer-Encoding: chunked` body.
    ///
    /// - Parameters:
    ///   - chunkSize: The largest chunk in bytes (at least 1).
    ///   - delayBetweenChunks: Seconds to sleep between chunks (and before the last, empty chunk).
    /// - Returns: The modified copy.
    public func chunked(chunkSize: Int = 16_384, delayBetweenChunks: TimeInterval = 0) -> LoopbackHTTPResponse {
        var copy = self
        copy.transfer = .chunked(chunkSize: max(1, chunkSize), delayBetweenChunks: delayBetweenChunks)
        return copy
    }

    /// This response with its body written one byte at a time, `delayPerByte` seconds apart.
    ///
    /// - Parameter delayPerByte: Seconds between bytes.
    /// - Returns: The modified copy.
    public func trickled(delayPerByte: TimeInterval) -> LoopbackHTTPResponse {
        var copy = self
        copy.transfer = .trickle(delayPerByte: delayPerByte)
        return copy
    }

    /// This response cut short: the head and the first `count` body bytes, then the connection closes
    /// (the framing headers still announce the whole body).
    ///
    /// - Parameter count: How many body bytes to send before closing; 0 sends the head only.
    /// - Returns: The modified copy.
    public func closingConnection(afterBodyBytes count: Int) -> LoopbackHTTPResponse {
        var copy = self
        copy.ending = .closeAfterBodyBytes(max(0, count))
        return copy
    }
}
