import Foundation

/// Writes WebSocket frames (RFC 6455 §5.2): a client's masked with a fresh key each (§5.3), a
/// server's unmasked.
package enum WebSocketFrameEncoder {
    /// The bytes of `frame`, header and (masked) payload written in one pass into one buffer.
    ///
    /// - Parameters:
    ///   - frame: The frame; a control frame's payload must be at most 125 bytes (the caller
    ///     bounds it: close reasons are cut, ping payloads are the caller's own).
    ///   - mask: The masking key, for a client's frame (its four bytes, most significant first); nil
    ///     for a server's.
    package static func encode(_ frame: WebSocketFrame, mask: UInt32?) -> Data {
        let length = frame.payload.count
        let lengthBytes = length < 126 ? 0 : length <= Int(UInt16.max) ? 2 : 8
        let headerLength = 2 + lengthBytes + (mask == nil ? 0 : 4)
        var bytes = Data(count: headerLength + length)
        bytes.withUnsafeMutableBytes { out in
            out[0] = (frame.isFinal ? 0x80 : 0) | frame.opcode.rawValue
            let maskBit: UInt8 = mask == nil ? 0 : 0x80
            switch lengthBytes {
            case 0: out[1] = maskBit | UInt8(truncatingIfNeeded: length)
            case 2: out[1] = maskBit | 126
            default: out[1] = maskBit | 127
            }
            for index in 0..<lengthBytes {
                out[2 + index] = UInt8(truncatingIfNeeded: UInt64(length) >> (8 * UInt64(lengthBytes - 1 - index)))
            }
            let payloadStart = headerLength
            frame.payload.withUnsafeBytes { payload in
                guard let mask else {
                    if let source = payload.baseAddress, let target = out.baseAddress {
                        (target + payloadStart).copyMemory(from: source, byteCount: length)
                    }
                    return
                }
                let key = (0..<4).map { UInt8(truncatingIfNeeded: mask >> (24 - 8 * UInt32($0))) }
                for index in 0..<4 {
                    out[2 + lengthBytes + index] = key[index]
                }
                for index in 0..<length {
                    out[payloadStart + index] = payload[index] ^ key[index & 3]
                }
            }
        }
        return bytes
    }

    /// A masking key from the system's random source (§5.3: one the peer's scripts cannot predict).
    package static func randomMask() -> UInt32 {
        var generator = SystemRandomNumberGenerator()
        return UInt32.random(in: .min ... .max, using: &generator)
    }
}
