import Foundation

/// The directives of `Cache-Control` (RFC 9111 §5.2) a private cache acts on, from a request or a
/// response, parsed on bytes and bounded: at most 8 KiB of header text and 64 directives are read,
/// delta-seconds above 2^31 count as 2^31 (§1.2.2), and what cannot be read is ignored — except a
/// `max-age` whose value is not a number, which makes the response stale (§4.2.1).
///
/// Also reads `Pragma: no-cache` for a request without `Cache-Control` (§5.4).
struct CacheControl: Equatable, Sendable {
    /// The largest delta-seconds a cache must handle (§1.2.2).
    static let maxDeltaSeconds: TimeInterval = 2_147_483_648

    var maxAge: TimeInterval?
    /// Read for §3.5 only (a private cache takes its freshness from `max-age`).
    var sharedMaxAge: TimeInterval?
    var noCache = false
    var noStore = false
    var isPrivate = false
    var isPublic = false
    var mustRevalidate = false
    var immutable = false
    var staleWhileRevalidate: TimeInterval?
    var staleIfError: TimeInterval?
    /// Request only: how stale an answer may be; `.infinity` for `max-stale` without a value.
    var maxStale: TimeInterval?
    /// Request only.
    var minFresh: TimeInterval?
    /// Request only.
    var onlyIfCached = false

    init() {}

    /// The directives of the `Cache-Control` fields of a response (every line, however cased).
    init(headers: HTTPHeaders) {
        self.init(fields: headers.lazy.map { ($0.name, $0.value) })
    }

    /// The directives of the `Cache-Control` fields of a request's headers.
    init(headers: [String: String]) {
        self.init(fields: headers.lazy.map { ($0.key, $0.value) })
    }

    private init(fields: some Sequence<(String, String)>) {
        var text = ""
        var pragma: String?
        for (name, value) in fields {
            if HeaderFields.equalsIgnoringASCIICase(name, "Cache-Control") {
                text += text.isEmpty ? value : "," + value
            } else if HeaderFields.equalsIgnoringASCIICase(name, "Pragma") {
                pragma = value
            }
        }
        self.init(text)
        if text.isEmpty, let pragma, CacheControl(pragma).noCache {
            noCache = true
        }
    }

    /// The directives of one `Cache-Control` value.
    init(_ value: String) {
        var bytes = Array(value.utf8.prefix(8_192))
        bytes.append(UInt8(ascii: ","))
        var start = 0
        var inQuotes = false
        var count = 0
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                inQuotes.toggle()
            } else if byte == UInt8(ascii: ","), !inQuotes {
                apply(bytes[start..<index])
                start = index + 1
                count += 1
                if count >= 64 { break }
            }
        }
    }

    private mutating func apply(_ directive: ArraySlice<UInt8>) {
        let trimmed = directive.drop { $0 == 0x20 || $0 == 0x09 }
        let equals = trimmed.firstIndex(of: UInt8(ascii: "="))
        let nameBytes = trimmed[..<(equals ?? trimmed.endIndex)].reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
        guard !nameBytes.isEmpty, nameBytes.count <= 32 else { return }
        let name = String(decoding: nameBytes, as: UTF8.self).lowercased()
        var value: ArraySlice<UInt8>?
        if let equals {
            var raw = trimmed[(equals + 1)...].drop { $0 == 0x20 || $0 == 0x09 }
            while let last = raw.last, last == 0x20 || last == 0x09 { raw = raw.dropLast() }
            if raw.count >= 2, raw.first == UInt8(ascii: "\""), raw.last == UInt8(ascii: "\"") {
                raw = raw.dropFirst().dropLast()
            }
            value = raw
        }
        switch name {
        case "max-age":
            // An invalid max-age makes the response stale rather than fresh forever.
            maxAge = Self.seconds(value) ?? 0
        case "s-maxage":
            sharedMaxAge = Self.seconds(value) ?? 0
        case "no-cache":
            noCache = true
        case "no-store":
            noStore = true
        case "private":
            isPrivate = true
        case "public":
            isPublic = true
        case "must-revalidate", "proxy-revalidate":
            mustRevalidate = true
        case "immutable":
            immutable = true
        case "stale-while-revalidate":
            staleWhileRevalidate = Self.seconds(value)
        case "stale-if-error":
            staleIfError = Self.seconds(value)
        case "max-stale":
            maxStale = value == nil ? .infinity : Self.seconds(value)
        case "min-fresh":
            minFresh = Self.seconds(value)
        case "only-if-cached":
            onlyIfCached = true
        default:
            break
        }
    }

    /// Delta-seconds: digits only, capped at 2^31; nil if absent or not a number.
    static func seconds(_ value: ArraySlice<UInt8>?) -> TimeInterval? {
        guard let value, !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        // Twelve digits are already past the cap: the rest cannot lower it.
        guard value.count <= 12, let number = TimeInterval(String(decoding: value, as: UTF8.self)) else { return maxDeltaSeconds }
        return min(number, maxDeltaSeconds)
    }
}
