import Foundation

/// One frame of the WebSocket protocol (RFC 6455 §5.2), its payload unmasked.
package struct WebSocketFrame: Equatable, Sendable {
    /// What a frame carries (§5.2, §11.8); the other values are reserved and fail the connection.
    package enum Opcode: UInt8, Sendable {
        case continuation = 0x0
        case text = 0x1
        case binary = 0x2
        case close = 0x8
        case ping = 0x9
        case pong = 0xA

        /// Close, ping and pong (§5.5): unfragmented, at most 125 bytes, allowed between the
        /// fragments of a message.
        package var isControl: Bool {
            rawValue & 0x8 != 0
        }
    }

    /// The largest payload of a control frame (§5.5).
    package static let maxControlPayload = 125

    /// Whether this is the last fragment of its message.
    package var isFinal: Bool
    package var opcode: Opcode
    /// The payload, in storage of its own (`startIndex` 0).
    package var payload: Data

    package init(isFinal: Bool = true, opcode: Opcode, payload: Data) {
        self.isFinal = isFinal
        self.opcode = opcode
        self.payload = payload
    }

    package init(isFinal: Bool = true, opcode: Opcode, payload: [UInt8]) {
        self.init(isFinal: isFinal, opcode: opcode, payload: Data(payload))
    }
}

/// A frame as the parser hands it over: the payload where it was received, valid only for the
/// call it is passed to (see `WebSocketFrameParser.next(_:)`).
package struct WebSocketFrameView {
    package var isFinal: Bool
    package var opcode: WebSocketFrame.Opcode
    package var payload: UnsafeRawBufferPointer
}
