/// Up to eight header names that code reads from every response, found in one pass over the
/// response's names (a lookup per name scanned every header once per name), ASCII case folded.
/// Made once, as a static constant: the lengths are compared before any byte.
struct HeaderFieldNames: Sendable {
    private let names: [String]
    private let lengths: [Int]
    /// Bit n is set when a name is n bytes long (n < 64): most lines of a message are passed over
    /// on their length alone, before any name is compared.
    private let lengthMask: UInt64

    /// The first eight of `names`.
    init(_ names: String...) {
        self.names = Array(names.prefix(8))
        self.lengths = self.names.map(\.utf8.count)
        self.lengthMask = self.lengths.reduce(0) { mask, length in length < 64 ? mask | (1 << UInt64(length)) : mask }
    }

    /// Calls `found` with the index of each name present in a message's `headers` and its first
    /// line, in one pass over the lines; with `combining`, once more for a name that came on several
    /// lines, with all of them joined by ", " whatever the field (the last call for an index wins):
    /// a framing check must see two `Content-Length` lines as the conflict they are, as it saw
    /// Foundation's combined value, where a number read from the first line stays readable.
    func forEachValue(in headers: HTTPHeaders, combining: Bool, _ found: (_ index: Int, _ value: String) -> Void) {
        var seen: UInt8 = 0
        var repeated: UInt8 = 0
        for field in headers.fields {
            let length = field.name.utf8.count
            guard length >= 64 || lengthMask & (1 << UInt64(length)) != 0 else { continue }
            for index in lengths.indices where lengths[index] == length && HeaderFields.equalsIgnoringASCIICase(field.name, names[index]) {
                if seen & (1 << index) == 0 {
                    seen |= 1 << index
                    found(index, field.value)
                } else {
                    repeated |= 1 << index
                }
            }
        }
        guard combining, repeated != 0 else { return }
        for index in names.indices where repeated & (1 << index) != 0 {
            found(index, headers.values(for: names[index]).joined(separator: ", "))
        }
    }
}
