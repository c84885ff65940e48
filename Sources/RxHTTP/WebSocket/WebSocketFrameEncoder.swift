/// Writes WebSocket frames (RFC 6455 §5.2): a client's masked with a fresh key each (§5.3), a
/// server's unmasked.
package enum WebSocketFrameEncoder {
    /// The bytes of `frame`.
    ///
    /// - Parameters:
    ///   - frame: The frame; a control frame's payload must be at most 125 bytes (the caller
    ///     bounds it: close reasons are cut, ping payloads are the caller's own).
    ///   - mask: The masking key, for a client's frame (its four bytes, most significant first); nil
    ///     for a server's.
    package static func encode(_ frame: WebSocketFrame, mask: UInt32?) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frame.payload.count + 14)
        bytes.append((frame.isFinal ? 0x80 : 0) | frame.opcode.rawValue)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        let length = frame.payload.count
        if length < 126 {
            bytes.append(maskBit | UInt8(truncatingIfNeeded: length))
        } else if length <= Int(UInt16.max) {
            bytes.append(maskBit | 126)
            bytes.append(contentsOf: bigEndian(UInt64(length), byteCount: 2))
        } else {
            bytes.append(maskBit | 127)
            bytes.append(contentsOf: bigEndian(UInt64(length), byteCount: 8))
        }
        guard let mask else {
            bytes.append(contentsOf: frame.payload)
            return bytes
        }
        let key = bigEndian(UInt64(mask), byteCount: 4)
        bytes.append(contentsOf: key)
        for (index, byte) in frame.payload.enumerated() {
            bytes.append(byte ^ key[index & 3])
        }
        return bytes
    }

    /// A masking key from the system's random source (§5.3: one the peer's scripts cannot predict).
    package static func randomMask() -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        return UInt32.random(in: .min ... .max, using: &generator)
    }

    private static func bigEndian(_ value: UInt64, byteCount: Int) -> [UInt8] {
        (0..<byteCount).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }
}
