import Foundation

/// What a server says of its own rate limit, read from the headers of any answer:
///
/// - the IETF httpapi draft's structured `RateLimit: "default";r=0;t=30` (remaining `r`, seconds to
///   reset `t`; with several policies the one with the fewest remaining);
/// - its earlier forms, `RateLimit: limit=100, remaining=0, reset=30` and the separate
///   `RateLimit-Remaining` / `RateLimit-Reset` (delta seconds);
/// - the common `X-RateLimit-Remaining` with `X-RateLimit-Reset` in epoch seconds (GitHub), epoch
///   milliseconds or delta seconds (told apart by size), or `X-RateLimit-Reset-After` (delta).
///
/// Values are parsed on bytes and bounded (numbers of at most 15 digits, 2 KiB of header text);
/// garbage reads as nothing said.
enum RateLimitHeaders {
    /// The server's count of requests left, and the seconds until it resets (if it said).
    struct Status: Equatable, Sendable {
        var remaining: Int
        var resetAfter: TimeInterval?
    }

    /// The status the headers state, if any; `now` (wall clock) turns an epoch reset into a delta.
    static func status(in headers: HTTPHeaders, now: Date) -> Status? {
        // This runs on every answer, and most say nothing of a rate limit: one pass over the names.
        var rateLimit, remaining, reset, legacyRemaining, legacyResetAfter, legacyReset: String?
        fieldNames.forEachValue(in: headers, combining: false) { index, value in
            switch index {
            case 0: rateLimit = value
            case 1: remaining = value
            case 2: reset = value
            case 3: legacyRemaining = value
            case 4: legacyResetAfter = value
            default: legacyReset = value
            }
        }
        if let rateLimit, let status = parseRateLimitField(rateLimit) {
            return status
        }
        if let remaining = number(remaining) {
            return Status(remaining: clamp(remaining), resetAfter: number(reset))
        }
        if let remaining = number(legacyRemaining) {
            var reset = number(legacyResetAfter)
            if reset == nil, let stated = number(legacyReset) {
                reset = delta(fromResetValue: stated, now: now)
            }
            return Status(remaining: clamp(remaining), resetAfter: reset)
        }
        return nil
    }

    /// The fields read, in the order `status(in:now:)` indexes them.
    private static let fieldNames = HeaderFieldNames(
        "RateLimit", "RateLimit-Remaining", "RateLimit-Reset",
        "X-RateLimit-Remaining", "X-RateLimit-Reset-After", "X-RateLimit-Reset"
    )

    /// `X-RateLimit-Reset` as seconds from now: above 10^12 epoch milliseconds, above 10^9 epoch
    /// seconds (2001 on), else already a delta.
    static func delta(fromResetValue value: TimeInterval, now: Date) -> TimeInterval {
        let epoch = now.timeIntervalSince1970
        if value >= 1e12 { return max(0, value / 1_000 - epoch) }
        if value >= 1e9 { return max(0, value - epoch) }
        return value
    }

    /// `RateLimit`: the structured form (`"name";r=…;t=…`, items separated by commas) or the
    /// dictionary form of earlier drafts (`limit=…, remaining=…, reset=…`).
    static func parseRateLimitField(_ value: String) -> Status? {
        let bytes = Array(value.utf8.prefix(2_048))
        var best: Status?
        var dictionary = Status(remaining: -1, resetAfter: nil)
        for item in bytes.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: true) {
            let parts = item.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: true)
            var remaining: TimeInterval?
            var reset: TimeInterval?
            for part in parts {
                let pair = part.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
                guard pair.count == 2 else { continue }
                let key = String(decoding: trim(pair[0]), as: UTF8.self).lowercased()
                let number = number(trim(pair[1]))
                switch key {
                case "r": remaining = number
                case "t": reset = number
                case "remaining": if let number { dictionary.remaining = clamp(number) }
                case "reset": if let number { dictionary.resetAfter = number }
                default: break
                }
            }
            if let remaining {
                let status = Status(remaining: clamp(remaining), resetAfter: reset)
                if best == nil || status.remaining < (best?.remaining ?? .max) { best = status }
            }
        }
        if let best { return best }
        return dictionary.remaining >= 0 ? dictionary : nil
    }

    private static func trim(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes.drop { $0 == 0x20 || $0 == 0x09 }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    private static func number(_ text: String?) -> TimeInterval? {
        guard let text else { return nil }
        return number(trim(Array(text.utf8)[...]))
    }

    /// A non-negative integer of at most 15 digits.
    private static func number(_ bytes: ArraySlice<UInt8>) -> TimeInterval? {
        guard !bytes.isEmpty, bytes.count <= 15, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return TimeInterval(String(decoding: bytes, as: UTF8.self))
    }

    private static func clamp(_ value: TimeInterval) -> Int {
        value >= TimeInterval(Int32.max) ? Int(Int32.max) : Int(value)
    }
}
