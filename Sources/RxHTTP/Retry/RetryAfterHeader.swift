import Foundation

/// Parses `Retry-After` (RFC 9110 §10.2.3): delay-seconds, or an HTTP date.
///
/// Dates are parsed by hand, on ASCII bytes: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) and the
/// obsolete RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`)
/// forms that recipients must accept. Foundation's `DateFormatter` is not used: on Linux it traps
/// on text that ends inside a combining character sequence, which a server controls.
enum RetryAfterHeader {
    /// The wait in seconds from `now`, never negative; nil if `value` is neither form.
    static func seconds(from value: String, now: Date) -> TimeInterval? {
        let bytes = Array(value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed())
        guard !bytes.isEmpty else { return nil }
        if bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // An absurdly long number still means "a long time", not a parse failure.
            return TimeInterval(String(decoding: bytes, as: UTF8.self)) ?? .infinity
        }
        guard bytes.count <= 40, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
              let date = HTTPDate.parse(bytes) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// An HTTP date, parsed from ASCII bytes into seconds since 1970 (UTC).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date `bytes` spell in one of the three HTTP-date forms, or nil.
    static func parse(_ bytes: [UInt8]) -> Date? {
        let text = String(decoding: bytes, as: UTF8.self)
        let words = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let parts: (day: Int, month: Int, year: Int, time: String)?
        if words.count == 6, words[0].hasSuffix(","), words[5] == "GMT" {
            // IMF-fixdate: "Sun," "06" "Nov" "1994" "08:49:37" "GMT"
            parts = number(words[1]).flatMap { day in month(words[2]).flatMap { month in number(words[3]).map { (day, month, $0, words[4]) } } }
        } else if words.count == 4, words[0].hasSuffix(","), words[3] == "GMT" {
            // RFC 850: "Sunday," "06-Nov-94" "08:49:37" "GMT"
            let dayMonthYear = words[1].split(separator: "-").map(String.init)
            guard dayMonthYear.count == 3, let day = number(dayMonthYear[0]), let month = month(dayMonthYear[1]),
                  let twoDigits = number(dayMonthYear[2]), dayMonthYear[2].count == 2 else { return nil }
            parts = (day, month, twoDigits < 70 ? 2000 + twoDigits : 1900 + twoDigits, words[2])
        } else if words.count == 5 {
            // asctime: "Sun" "Nov" "6" "08:49:37" "1994"
            parts = month(words[1]).flatMap { month in number(words[2]).flatMap { day in number(words[4]).map { (day, month, $0, words[3]) } } }
        } else {
            parts = nil
        }
        guard let parts, (1...31).contains(parts.day), (1...12).contains(parts.month), (1600...9999).contains(parts.year) else { return nil }
        let clock = parts.time.split(separator: ":").map(String.init)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
              hour < 24, minute < 60, second < 61 else { return nil }
        let days = daysFromCivil(year: parts.year, month: parts.month, day: parts.day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3_600 + minute * 60 + second))
    }

    private static func number(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 4, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func month(_ text: String) -> Int? {
        months.firstIndex(of: text.lowercased()).map { $0 + 1 }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
