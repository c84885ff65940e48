/// Why the bytes a peer sent are not the WebSocket protocol (RFC 6455), with the close code that
/// ends the connection for it (§7.4.1).
package enum WebSocketProtocolError: Error, Equatable, Sendable {
    /// A reserved bit is set, though no extension was negotiated (§5.2).
    case reservedBitsSet
    /// An opcode the protocol reserves (§5.2).
    case reservedOpcode(UInt8)
    /// A control frame that is fragmented or longer than 125 bytes (§5.5).
    case invalidControlFrame
    /// A server's frame that is masked, or a client's that is not (§5.1).
    case wrongMasking
    /// A length whose most significant bit is set (§5.2).
    case invalidLength
    /// A frame or a message longer than the limit the receiver set.
    case tooBig(limit: Int)
    /// A continuation frame with no message to continue, or a new message before the last ended.
    case unexpectedFragment
    /// A text message, or a close reason, that is not UTF-8 (§8.1).
    case invalidUTF8
    /// A close frame whose payload is one byte, or whose code may not be sent (§7.4).
    case invalidClose

    /// The close code the receiver sends for this error (§7.4.1): 1009 for a message too big, 1007
    /// for data that is not UTF-8, 1002 for the rest.
    package var closeCode: UInt16 {
        switch self {
        case .tooBig: 1009
        case .invalidUTF8: 1007
        default: 1002
        }
    }
}
