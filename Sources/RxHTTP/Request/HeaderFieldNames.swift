/// Up to eight header names that code reads from every response, found in one pass over the
/// response's names (a lookup per name scanned every header once per name), ASCII case folded.
/// Made once, as a static constant: the lengths are compared before any byte.
struct HeaderFieldNames: Sendable {
    private let names: [String]
    private let lengths: [Int]

    /// The first eight of `names`.
    init(_ names: String...) {
        self.names = Array(names.prefix(8))
        self.lengths = self.names.map(\.utf8.count)
    }

    /// Calls `found` once with the index of each name present in a message's `headers` and its
    /// value: with `combining`, all its lines joined with ", " whatever the field (a framing check
    /// must see two `Content-Length` lines as the conflict they are, as it saw Foundation's combined
    /// value); without, its first line (a number that a second line would make unreadable).
    func forEachValue(in headers: HTTPHeaders, combining: Bool, _ found: (_ index: Int, _ value: String) -> Void) {
        var values = [String?](repeating: nil, count: names.count)
        for (key, value) in headers {
            let length = key.utf8.count
            for index in lengths.indices where lengths[index] == length && HeaderFields.equalsIgnoringASCIICase(key, names[index]) {
                if let existing = values[index] {
                    if combining { values[index] = existing + ", " + value }
                } else {
                    values[index] = value
                }
            }
        }
        for (index, value) in values.enumerated() {
            if let value { found(index, value) }
        }
    }
}
