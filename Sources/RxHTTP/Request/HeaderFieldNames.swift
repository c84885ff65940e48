/// Up to eight header names that code reads from every response, found in one pass over the
/// response's names (a lookup per name scanned every header once per name). Each is found as
/// `HeaderFields.value(_:in:)` finds it: ASCII case folded, the exact spelling first. Made once, as
/// a static constant: the lengths are compared before any byte.
struct HeaderFieldNames: Sendable {
    private let names: [String]
    private let lengths: [Int]

    /// The first eight of `names`.
    init(_ names: String...) {
        self.names = Array(names.prefix(8))
        self.lengths = self.names.map(\.utf8.count)
    }

    /// Calls `found` with the index of a name and its value in `headers`: once per name present,
    /// or again when the exact spelling comes after another one (the last call for an index wins).
    func forEachValue(in headers: [String: String], _ found: (_ index: Int, _ value: String) -> Void) {
        var seen: UInt8 = 0
        var exact: UInt8 = 0
        for (key, value) in headers {
            let length = key.utf8.count
            for index in lengths.indices where lengths[index] == length && exact & (1 << index) == 0 {
                let name = names[index]
                guard HeaderFields.equalsIgnoringASCIICase(key, name) else { continue }
                if key == name {
                    exact |= 1 << index
                } else if seen & (1 << index) != 0 {
                    continue
                }
                seen |= 1 << index
                found(index, value)
            }
        }
    }
}
