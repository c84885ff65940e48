import Foundation

/// What a WebSocket peer sent, once its frames are put together (RFC 6455 §5.4, §5.5).
package enum WebSocketInbound: Equatable, Sendable {
    /// A text message, validated as UTF-8.
    case text(String)
    /// A binary message.
    case binary(Data)
    /// A ping, to be answered with a pong carrying the same payload (§5.5.2).
    case ping(Data)
    /// A pong: the answer to a ping, or a heartbeat (§5.5.3).
    case pong(Data)
    /// The peer's close frame: its code (nil if it sent none, which reads as 1005) and reason.
    case close(code: UInt16?, reason: String)
}

/// Puts a connection's frames together into messages, within a size limit, and checks what spans
/// frames: fragments in order, control frames between them, text and close reasons in UTF-8 (§8.1),
/// close codes that may be sent (§7.4).
///
/// Not thread-safe: one per connection, fed from one thread.
package struct WebSocketMessageAssembler {
    private let maxMessageSize: Int
    /// The message being received in fragments, if any: its kind and the bytes so far.
    private var partial: (opcode: WebSocketFrame.Opcode, bytes: Data)?

    /// - Parameter maxMessageSize: The longest message accepted, in bytes, all fragments together.
    package init(maxMessageSize: Int) {
        self.maxMessageSize = max(0, maxMessageSize)
    }

    /// Takes the next frame; returns what it completes, or nil for a fragment of a message still
    /// incomplete.
    ///
    /// - Throws: `WebSocketProtocolError` when the frame breaks the protocol or the limit.
    package mutating func receive(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketInbound? {
        let received = frame.payload.withUnsafeBytes { payload in
            Result { () throws(WebSocketProtocolError) -> WebSocketInbound? in
                try receive(WebSocketFrameView(isFinal: frame.isFinal, opcode: frame.opcode, payload: payload))
            }
        }
        return try received.get()
    }

    /// Takes the next frame as the parser hands it over: a whole message is made straight from the
    /// received bytes (its one copy), fragments are gathered within the limit.
    ///
    /// - Throws: `WebSocketProtocolError` when the frame breaks the protocol or the limit.
    package mutating func receive(_ frame: WebSocketFrameView) throws(WebSocketProtocolError) -> WebSocketInbound? {
        switch frame.opcode {
        case .ping:
            return .ping(Self.data(frame.payload))
        case .pong:
            return .pong(Self.data(frame.payload))
        case .close:
            return try Self.close([UInt8](frame.payload))
        case .text, .binary:
            guard partial == nil else { throw .unexpectedFragment }
            guard frame.payload.count <= maxMessageSize else { throw .tooBig(limit: maxMessageSize) }
            guard frame.isFinal else {
                partial = (frame.opcode, Self.data(frame.payload))
                return nil
            }
            guard frame.opcode == .text else { return .binary(Self.data(frame.payload)) }
            guard let text = Self.text(frame.payload) else { throw .invalidUTF8 }
            return .text(text)
        case .continuation:
            guard var message = partial else { throw .unexpectedFragment }
            guard frame.payload.count <= maxMessageSize - message.bytes.count else {
                throw .tooBig(limit: maxMessageSize)
            }
            partial = nil
            message.bytes.append(contentsOf: frame.payload)
            guard frame.isFinal else {
                partial = message
                return nil
            }
            guard message.opcode == .text else { return .binary(message.bytes) }
            guard let text = message.bytes.withUnsafeBytes({ Self.text($0) }) else { throw .invalidUTF8 }
            return .text(text)
        }
    }

    /// `bytes` in a `Data` of their own.
    private static func data(_ bytes: UnsafeRawBufferPointer) -> Data {
        bytes.baseAddress.map { Data(bytes: $0, count: bytes.count) } ?? Data()
    }

    /// `bytes` as text, if they are UTF-8 (§8.1).
    private static func text(_ bytes: UnsafeRawBufferPointer) -> String? {
        // ASCII is valid UTF-8 as it is: decoding it skips a validation that costs twice as much.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        return String(validating: bytes, as: UTF8.self)
    }

    /// A close frame's payload: nothing, or a code of two bytes and a UTF-8 reason (§5.5.1).
    private static func close(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketInbound {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { throw .invalidClose }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        guard isSendable(code) else { throw .invalidClose }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else { throw .invalidUTF8 }
        return .close(code: code, reason: reason)
    }

    /// Whether a peer may send `code` in a close frame (§7.4.1, §7.4.2, and the codes IANA
    /// registered since: 1012–1014); 1004–1006 and 1015 are reserved, 1016–2999 unassigned.
    package static func isSendable(_ code: UInt16) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
