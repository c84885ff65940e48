/// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit pseudo-random function, short
/// enough to write here and strong enough to sign the soak's tokens without a crypto library.
enum SipHash {
    /// The 64-bit SipHash-2-4 of `message` under the 128-bit key `(k0, k1)` (little-endian halves).
    static func hash(_ message: [UInt8], k0: UInt64, k1: UInt64) -> UInt64 {
        var v0: UInt64 = 0x736f_6d65_7073_6575 ^ k0
        var v1: UInt64 = 0x646f_7261_6e64_6f6d ^ k1
        var v2: UInt64 = 0x6c79_6765_6e65_7261 ^ k0
        var v3: UInt64 = 0x7465_6462_7974_6573 ^ k1
        func rotate(_ x: UInt64, _ b: UInt64) -> UInt64 { (x << b) | (x >> (64 - b)) }
        func round() {
            v0 &+= v1; v1 = rotate(v1, 13); v1 ^= v0; v0 = rotate(v0, 32)
            v2 &+= v3; v3 = rotate(v3, 16); v3 ^= v2
            v0 &+= v3; v3 = rotate(v3, 21); v3 ^= v0
            v2 &+= v1; v1 = rotate(v1, 17); v1 ^= v2; v2 = rotate(v2, 32)
        }
        func word(at index: Int, count: Int) -> UInt64 {
            var word: UInt64 = 0
            for byte in 0..<count { word |= UInt64(message[index + byte]) << (8 * UInt64(byte)) }
            return word
        }
        let whole = message.count - message.count % 8
        var index = 0
        while index < whole {
            let m = word(at: index, count: 8)
            v3 ^= m
            round(); round()
            v0 ^= m
            index += 8
        }
        let last = (UInt64(message.count & 0xff) << 56) | word(at: whole, count: message.count % 8)
        v3 ^= last
        round(); round()
        v0 ^= last
        v2 ^= 0xff
        round(); round(); round(); round()
        return v0 ^ v1 ^ v2 ^ v3
    }

    /// Whether this implementation gives the paper's test vector (key 00…0f, message 00…0e).
    static var passesReferenceVector: Bool {
        hash(Array(0..<15), k0: 0x0706_0504_0302_0100, k1: 0x0f0e_0d0c_0b0a_0908) == 0xa129_ca61_49be_45e5
    }
}
