import Foundation

/// A `Content-Range` value of a byte range (RFC 9110 §14.4): `bytes first-last/complete`, or
/// `bytes */complete` in a 416.
struct ContentRange: Equatable, Sendable {
    /// The first and last byte positions sent, nil for `*` (a 416's unsatisfied range).
    var range: ClosedRange<Int64>?
    /// The whole representation's length, nil for `*` (unknown).
    var completeLength: Int64?

    /// Parses `value`; nil for anything but a well-formed byte range.
    init?(_ value: String) {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard trimmed.count > 6, trimmed.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" {
            completeLength = nil
        } else {
            guard let length = Self.number(halves[1]) else { return nil }
            completeLength = length
        }
        if halves[0] == "*" {
            guard completeLength != nil else { return nil }
            range = nil
        } else {
            let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), first <= last else {
                return nil
            }
            if let completeLength, last >= completeLength { return nil }
            range = first...last
        }
    }

    /// A non-negative decimal that fits in `Int64`, digits only.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }
}
