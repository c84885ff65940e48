/// Parses the frames of a WebSocket connection from bytes as they arrive (RFC 6455 §5.2), in any
/// split, and checks what a single frame must obey: reserved bits and opcodes, control frames
/// (§5.5), masking by role (§5.1), and a size limit checked from the header, before the payload is
/// buffered.
///
/// Not thread-safe: one parser per connection, fed from one thread.
package struct WebSocketFrameParser {
    /// Which end of the connection parses: a client reads unmasked frames, a server masked ones.
    package enum Role: Sendable {
        case client
        case server
    }

    private let role: Role
    private let maxFrameSize: Int
    private var buffer: [UInt8] = []
    /// Where the unparsed bytes of `buffer` start; consumed bytes are dropped in batches.
    private var start = 0

    /// - Parameters:
    ///   - role: The end that parses.
    ///   - maxFrameSize: The longest payload accepted, in bytes; a longer frame fails with
    ///     `.tooBig` as soon as its header is read. Clamped to at least 125 (a control frame).
    package init(role: Role, maxFrameSize: Int) {
        self.role = role
        self.maxFrameSize = max(WebSocketFrame.maxControlPayload, maxFrameSize)
    }

    /// Bytes received, not parsed yet.
    package var bufferedByteCount: Int {
        buffer.count - start
    }

    /// Adds bytes received from the peer.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole frame, or nil until more bytes arrive.
    ///
    /// - Throws: `WebSocketProtocolError` when the bytes are not a valid frame; the connection is
    ///   then to be failed, and the parser is not to be used again.
    package mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        var cursor = start
        guard let first = byte(at: &cursor), let second = byte(at: &cursor) else { return nil }
        guard first & 0x70 == 0 else { throw .reservedBitsSet }
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            throw .reservedOpcode(first & 0x0F)
        }
        let isFinal = first & 0x80 != 0
        let isMasked = second & 0x80 != 0
        guard isMasked == (role == .server) else { throw .wrongMasking }
        guard let length = try payloadLength(second & 0x7F, at: &cursor) else { return nil }
        if opcode.isControl && (!isFinal || length > WebSocketFrame.maxControlPayload) {
            throw .invalidControlFrame
        }
        guard length <= maxFrameSize else { throw .tooBig(limit: maxFrameSize) }
        var mask: [UInt8] = []
        if isMasked {
            guard cursor + 4 <= buffer.count else { return nil }
            mask = Array(buffer[cursor..<cursor + 4])
            cursor += 4
        }
        guard length <= buffer.count - cursor else { return nil }
        var payload = Array(buffer[cursor..<cursor + length])
        if isMasked {
            for index in payload.indices {
                payload[index] ^= mask[index & 3]
            }
        }
        start = cursor + length
        return WebSocketFrame(isFinal: isFinal, opcode: opcode, payload: payload)
    }

    private func byte(at cursor: inout Int) -> UInt8? {
        guard cursor < buffer.count else { return nil }
        defer { cursor += 1 }
        return buffer[cursor]
    }

    /// The payload length of the 7-bit field `short` and the 16- or 64-bit extended length after
    /// it (§5.2); nil if those bytes have not all arrived.
    private func payloadLength(_ short: UInt8, at cursor: inout Int) throws(WebSocketProtocolError) -> Int? {
        let extendedBytes = short == 126 ? 2 : short == 127 ? 8 : 0
        guard extendedBytes > 0 else { return Int(short) }
        guard cursor + extendedBytes <= buffer.count else { return nil }
        var length: UInt64 = 0
        for _ in 0..<extendedBytes {
            length = length << 8 | UInt64(buffer[cursor])
            cursor += 1
        }
        guard length >> 63 == 0 else { throw .invalidLength }
        // Above the frame limit either way: no conversion can trap.
        return Int(exactly: length) ?? Int.max
    }
}
