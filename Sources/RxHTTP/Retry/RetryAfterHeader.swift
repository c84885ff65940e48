import Foundation
import RxCore

/// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP date.
enum RetryAfterHeader {
    /// The wait in seconds from `now`, never negative; nil if `value` is neither form.
    static func seconds(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 64 else { return nil }
        if trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // An absurdly long number still means "a long time", not a parse failure.
            return TimeInterval(trimmed) ?? .infinity
        }
        guard let date = formatters.withLock({ formatters in formatters.lazy.compactMap { $0.date(from: trimmed) }.first }) else {
            return nil
        }
        return max(0, date.timeIntervalSince(now))
    }

    /// IMF-fixdate, then the obsolete RFC 850 and asctime forms that recipients must accept. Made
    /// once (a formatter costs far more than a parse) and used under a lock (formatters are not
    /// guaranteed thread-safe).
    private static let formatters: LockedState<[DateFormatter]> = .make([
        "EEE, dd MMM yyyy HH:mm:ss zzz",
        "EEEE, dd-MMM-yy HH:mm:ss zzz",
        "EEE MMM d HH:mm:ss yyyy",
    ].map { format in
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    })
}
