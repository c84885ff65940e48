import Foundation

extension LoopbackHTTPResponse {
    /// A `200` whose body is gzip-compressed zeros (`Content-Encoding: gzip`): `inflatedSize` bytes
    /// once decoded, from about `inflatedSize / 160` bytes on the wire — a gzip bomb, for testing
    /// a client's response size limit.
    ///
    /// - Parameter inflatedSize: The decoded size in bytes (at least 1). Up to 16 MiB the stream is
    ///   complete and valid (CRC-32 included); a bigger one carries a zero CRC, since a client under
    ///   test is meant to stop long before the trailer.
    /// - Returns: The response.
    public static func gzipBomb(inflatedSize: Int) -> LoopbackHTTPResponse {
        LoopbackHTTPResponse(
            status: 200,
            headers: ["Content-Encoding": "gzip", "Content-Type": "application/octet-stream"],
            body: GzipBomb.make(decodedSize: max(1, inflatedSize))
        )
    }
}

/// Builds the stream: one literal zero, then back-references of length 258 at distance 1 in a
/// single fixed-Huffman deflate block (13 bits per 258 bytes), and the gzip trailer.
enum GzipBomb {
    static func make(decodedSize: Int) -> Data {
        let references = (decodedSize - 1) / 258
        let literals = (decodedSize - 1) % 258
        var data = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        var head = BitWriter()
        head.write(1, count: 1)          // BFINAL
        head.write(1, count: 2)          // BTYPE = fixed Huffman (01, written LSB first)
        head.writeHuffman(0b0011_0000, count: 8)  // literal 0
        var remaining = references
        if remaining > 0 {
            // 3 + 8 + 13 bits: byte-aligned again, so groups of 8 references (104 bits) are 13
            // identical bytes that can be copied instead of written bit by bit.
            head.writeReference()
            remaining -= 1
            data.append(contentsOf: head.finished)
            head = BitWriter()
            var group = BitWriter()
            for _ in 0..<8 { group.writeReference() }
            let pattern = group.finished
            let groups = remaining / 8
            remaining -= groups * 8
            data.reserveCapacity(data.count + groups * pattern.count + 64)
            for _ in 0..<groups { data.append(contentsOf: pattern) }
        }
        for _ in 0..<remaining { head.writeReference() }
        for _ in 0..<literals { head.writeHuffman(0b0011_0000, count: 8) }
        head.writeHuffman(0, count: 7)   // end of block (256)
        data.append(contentsOf: head.finished)
        append32(decodedSize <= 16 * 1_024 * 1_024 ? crc32OfZeros(decodedSize) : 0, to: &data)
        append32(UInt32(truncatingIfNeeded: decodedSize), to: &data)
        return data
    }

    private static func append32(_ value: UInt32, to data: inout Data) {
        for shift in stride(from: 0, to: 32, by: 8) {
            data.append(UInt8(truncatingIfNeeded: value >> UInt32(shift)))
        }
    }

    private static func crc32OfZeros(_ count: Int) -> UInt32 {
        var table = [UInt32](repeating: 0, count: 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 {
                value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
            }
            table[index] = value
        }
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count {
            crc = table[Int(crc & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private struct BitWriter {
        var bytes: [UInt8] = []
        private var current: UInt8 = 0
        private var used = 0

        /// Writes `count` bits of `value`, least significant first (deflate's header fields).
        mutating func write(_ value: UInt32, count: Int) {
            for bit in 0..<count {
                push(UInt8((value >> UInt32(bit)) & 1))
            }
        }

        /// Length 258 (symbol 285) at distance 1 (code 0): 13 bits.
        mutating func writeReference() {
            writeHuffman(0b1100_0101, count: 8)
            writeHuffman(0, count: 5)
        }

        /// Writes a Huffman code, most significant bit first.
        mutating func writeHuffman(_ code: UInt32, count: Int) {
            for bit in stride(from: count - 1, through: 0, by: -1) {
                push(UInt8((code >> UInt32(bit)) & 1))
            }
        }

        private mutating func push(_ bit: UInt8) {
            current |= bit << UInt8(used)
            used += 1
            if used == 8 {
                bytes.append(current)
                current = 0
                used = 0
            }
        }

        var finished: [UInt8] {
            used == 0 ? bytes : bytes + [current]
        }
    }
}
