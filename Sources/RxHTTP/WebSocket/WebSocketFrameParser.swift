import Foundation

/// Parses the frames of a WebSocket connection from bytes as they arrive (RFC 6455 §5.2), in any
/// split, and checks what a single frame must obey: reserved bits and opcodes, control frames
/// (§5.5), masking by role (§5.1), and a size limit checked from the header, before the payload is
/// buffered.
///
/// Each payload is copied once, from the bytes received into its own `Data`: a read is parsed where
/// it lies, and only the bytes of a frame cut by the end of a read are kept aside (at most one
/// frame, within the limit) until the next read completes it.
///
/// Not thread-safe: one parser per connection, fed from one thread.
package struct WebSocketFrameParser {
    /// Which end of the connection parses: a client reads unmasked frames, a server masked ones.
    package enum Role: Sendable {
        case client
        case server
    }

    /// A frame's header, read and checked.
    private struct Header {
        var isFinal: Bool
        var opcode: WebSocketFrame.Opcode
        var mask: UInt32?
        var headerLength: Int
        var payloadLength: Int
    }

    private let role: Role
    private let maxFrameSize: Int
    /// The start of a frame the previous read cut off; filled from the next read until it is whole.
    private var pending = Data()
    /// The latest read, parsed in place from `offset`.
    private var current = Data()
    private var offset = 0

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
        pending.count + current.count - offset
    }

    /// Adds bytes received from the peer. Bytes of an earlier read that `next()` has not consumed
    /// yet are kept (copied) before the new read takes their place.
    package mutating func append(_ bytes: Data) {
        if offset < current.count {
            pending.append(current[(current.startIndex + offset)...])
        }
        current = bytes
        offset = 0
    }

    /// Adds bytes received from the peer.
    package mutating func append(_ bytes: some Collection<UInt8>) {
        append(Data(bytes))
    }

    /// The next whole frame, its payload copied into a `Data` of its own; nil until more bytes
    /// arrive.
    ///
    /// - Throws: `WebSocketProtocolError` when the bytes are not a valid frame; the connection is
    ///   then to be failed, and the parser is not to be used again.
    package mutating func next() throws(WebSocketProtocolError) -> WebSocketFrame? {
        var nothing: Void = ()
        return try next(with: &nothing) { frame, _ in
            let payload = frame.payload.baseAddress.map { Data(bytes: $0, count: frame.payload.count) } ?? Data()
            return WebSocketFrame(isFinal: frame.isFinal, opcode: frame.opcode, payload: payload)
        }
    }

    /// Hands the next whole frame to `body` with its payload where it lies (unmasked), and returns
    /// what `body` made of it; nil until more bytes arrive. The payload is valid only inside `body`:
    /// what it keeps, it copies — once, where a message is made of it. `state` is the caller's,
    /// lent to `body` (an assembler beside the parser, without capturing their owner).
    ///
    /// - Throws: `WebSocketProtocolError` when the bytes are not a valid frame; the connection is
    ///   then to be failed, and the parser is not to be used again.
    package mutating func next<State, Result>(
        with state: inout State, _ body: (WebSocketFrameView, inout State) -> Result
    ) throws(WebSocketProtocolError) -> Result? {
        if !pending.isEmpty {
            guard let header = try completePending() else { return nil }
            defer { pending = Data() }
            return pending.withUnsafeBytes { bytes in
                Self.withFrame(header, in: bytes) { body($0, &state) }
            }
        }
        guard offset < current.count else { return nil }
        // Locals, not `self`, in the closure: capturing the parser would copy it for every frame.
        let (start, role, maxFrameSize) = (offset, self.role, self.maxFrameSize)
        // `withUnsafeBytes` rethrows untyped: the header's failure comes back as a value.
        let parsed = current.withUnsafeBytes { raw -> Swift.Result<(Result, length: Int)?, WebSocketProtocolError> in
            let bytes = UnsafeRawBufferPointer(rebasing: raw[start...])
            do throws(WebSocketProtocolError) {
                guard let header = try Self.header(in: bytes, role: role, maxFrameSize: maxFrameSize) else { return .success(nil) }
                let length = header.headerLength + header.payloadLength
                guard length <= bytes.count else { return .success(nil) }
                return .success((Self.withFrame(header, in: bytes) { body($0, &state) }, length))
            } catch {
                return .failure(error)
            }
        }
        guard let (result, length) = try parsed.get() else {
            // The read ends inside this frame: its bytes wait for the next read (the header was
            // checked, so they are within the limit — or there are fewer than 14 of them).
            pending = Data(current[(current.startIndex + offset)...])
            current = Data()
            offset = 0
            return nil
        }
        offset += length
        if offset == current.count {
            current = Data()
            offset = 0
        }
        return result
    }

    /// Moves bytes of the current read into `pending` until it holds a whole frame; its header, or
    /// nil while bytes are missing.
    private mutating func completePending() throws(WebSocketProtocolError) -> Header? {
        while true {
            let (role, maxFrameSize) = (self.role, self.maxFrameSize)
            let header = try pending.withUnsafeBytes { raw -> Swift.Result<Header?, WebSocketProtocolError> in
                do throws(WebSocketProtocolError) {
                    return .success(try Self.header(in: raw, role: role, maxFrameSize: maxFrameSize))
                } catch {
                    return .failure(error)
                }
            }.get()
            // Without a whole header, take the bytes it still lacks (never any of the next frame's).
            let wanted = (header.map { $0.headerLength + $0.payloadLength } ?? headerLength(in: pending)) - pending.count
            let taken = min(wanted, current.count - offset)
            if taken > 0 {
                let from = current.startIndex + offset
                pending.append(current[from..<from + taken])
                offset += taken
            }
            if offset == current.count {
                current = Data()
                offset = 0
            }
            if let header {
                return taken == wanted ? header : nil
            }
            guard taken > 0 else { return nil }
        }
    }

    /// How long the header starting `bytes` is, as far as its first two bytes tell (2 before them).
    private func headerLength(in bytes: Data) -> Int {
        guard bytes.count >= 2 else { return 2 }
        let second = bytes[bytes.startIndex + 1]
        let short = second & 0x7F
        return 2 + (short == 126 ? 2 : short == 127 ? 8 : 0) + (second & 0x80 != 0 ? 4 : 0)
    }

    /// The header at the start of `bytes`, checked; nil if it has not all arrived.
    private static func header(in bytes: UnsafeRawBufferPointer, role: Role, maxFrameSize: Int) throws(WebSocketProtocolError) -> Header? {
        guard bytes.count >= 2 else { return nil }
        let first = bytes[0]
        let second = bytes[1]
        guard first & 0x70 == 0 else { throw .reservedBitsSet }
        guard let opcode = WebSocketFrame.Opcode(rawValue: first & 0x0F) else {
            throw .reservedOpcode(first & 0x0F)
        }
        let isFinal = first & 0x80 != 0
        let isMasked = second & 0x80 != 0
        guard isMasked == (role == .server) else { throw .wrongMasking }
        let short = second & 0x7F
        let extendedBytes = short == 126 ? 2 : short == 127 ? 8 : 0
        guard bytes.count >= 2 + extendedBytes else { return nil }
        var length = UInt64(short)
        if extendedBytes > 0 {
            length = 0
            for index in 2..<2 + extendedBytes {
                length = length << 8 | UInt64(bytes[index])
            }
            guard length >> 63 == 0 else { throw .invalidLength }
        }
        if opcode.isControl && (!isFinal || length > UInt64(WebSocketFrame.maxControlPayload)) {
            throw .invalidControlFrame
        }
        guard length <= UInt64(maxFrameSize) else { throw .tooBig(limit: maxFrameSize) }
        var headerLength = 2 + extendedBytes
        var mask: UInt32?
        if isMasked {
            guard bytes.count >= headerLength + 4 else { return nil }
            mask = (headerLength..<headerLength + 4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[$1]) }
            headerLength += 4
        }
        // Within `maxFrameSize`, an `Int`: the conversion cannot trap.
        return Header(isFinal: isFinal, opcode: opcode, mask: mask, headerLength: headerLength, payloadLength: Int(length))
    }

    /// Calls `body` with the frame whose checked `header` starts `bytes`, which hold all of it; a
    /// masked payload is unmasked into a copy first (only a server reads masked frames).
    private static func withFrame<Result>(_ header: Header, in bytes: UnsafeRawBufferPointer, _ body: (WebSocketFrameView) -> Result) -> Result {
        let payload = UnsafeRawBufferPointer(rebasing: bytes[header.headerLength..<header.headerLength + header.payloadLength])
        guard let mask = header.mask else {
            return body(WebSocketFrameView(isFinal: header.isFinal, opcode: header.opcode, payload: payload))
        }
        var unmasked = [UInt8](payload)
        for index in unmasked.indices {
            unmasked[index] ^= UInt8(truncatingIfNeeded: mask >> (24 - 8 * UInt32(index & 3)))
        }
        return unmasked.withUnsafeBytes { payload in
            body(WebSocketFrameView(isFinal: header.isFinal, opcode: header.opcode, payload: payload))
        }
    }
}
