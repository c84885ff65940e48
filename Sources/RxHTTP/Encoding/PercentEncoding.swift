/// Percent-encoding for the parts of a URL and for form bodies, on UTF-8 bytes.
///
/// Valid `%XX` escapes already present in paths and queries are kept (so `a%20b` is not encoded
/// twice); a `%` not followed by two hex digits becomes `%25`. Keys and values of parameters are
/// always encoded in full.
enum PercentEncoding {
    /// Characters kept in a path: unreserved, sub-delims, `:`, `@` and `/` (RFC 3986 `pchar`).
    static func encodePath(_ text: String) -> String {
        encode(text, keepingEscapes: true) { isUnreserved($0) || isSubDelim($0) || $0 == 0x3A || $0 == 0x40 || $0 == 0x2F }
    }

    /// Whether `byte` stands in a path as it is: kept by `encodePath` and not a `%` (an escape is
    /// kept too, but only after it was checked).
    static func isPlainPathByte(_ byte: UInt8) -> Bool {
        isUnreserved(byte) || isSubDelim(byte) || byte == 0x3A || byte == 0x40 || byte == 0x2F
    }

    /// Characters kept in a query written by the caller: `pchar`, `/` and `?`.
    static func encodeQuery(_ text: String) -> String {
        encode(text, keepingEscapes: true) {
            isUnreserved($0) || isSubDelim($0) || $0 == 0x3A || $0 == 0x40 || $0 == 0x2F || $0 == 0x3F
        }
    }

    /// A query parameter key or value: only unreserved characters are kept, so `&`, `=`, `+`, `#`
    /// and spaces (`%20`) are escaped.
    static func encodeQueryComponent(_ text: String) -> String {
        encode(text, keepingEscapes: false) { isUnreserved($0) }
    }

    /// A single path segment: only unreserved characters and sub-delims are kept, so `/`, `?`,
    /// `#` and `%` are escaped.
    static func encodePathSegment(_ text: String) -> String {
        encode(text, keepingEscapes: false) { isUnreserved($0) || (isSubDelim($0) && $0 != 0x2B) }
    }

    /// An `application/x-www-form-urlencoded` key or value: spaces become `+`, everything but
    /// unreserved characters is escaped.
    static func encodeFormComponent(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            if byte == 0x20 {
                result.append("+")
            } else if isUnreserved(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                appendEscape(byte, to: &result)
            }
        }
        return result
    }

    private static func encode(_ text: String, keepingEscapes: Bool, allowed: (UInt8) -> Bool) -> String {
        var text = text
        let escaped = text.withUTF8 { bytes -> String? in
            // Most paths, keys and values need no escape: one pass finds out, and the text is kept.
            guard let first = firstByteToEscape(bytes, keepingEscapes: keepingEscapes, allowed: allowed) else {
                return nil
            }
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count + 16)
            result.append(contentsOf: bytes[..<first])
            var index = first
            while index < bytes.count {
                let byte = bytes[index]
                if keepingEscapes, isEscape(bytes, at: index) {
                    result.append(contentsOf: bytes[index..<index + 3])
                    index += 3
                    continue
                }
                if allowed(byte) {
                    result.append(byte)
                } else {
                    result.append(0x25)
                    result.append(hexDigits[Int(byte >> 4)])
                    result.append(hexDigits[Int(byte & 0x0F)])
                }
                index += 1
            }
            return String(decoding: result, as: UTF8.self)
        }
        return escaped ?? text
    }

    /// The index of the first byte `encode` would change, or nil when the text stays as it is.
    private static func firstByteToEscape(
        _ bytes: UnsafeBufferPointer<UInt8>, keepingEscapes: Bool, allowed: (UInt8) -> Bool
    ) -> Int? {
        var index = 0
        while index < bytes.count {
            if keepingEscapes, isEscape(bytes, at: index) {
                index += 3
                continue
            }
            if !allowed(bytes[index]) { return index }
            index += 1
        }
        return nil
    }

    /// Whether a valid `%XX` escape starts at `index`.
    private static func isEscape(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        bytes[index] == 0x25 && index + 2 < bytes.count && isHexDigit(bytes[index + 1]) && isHexDigit(bytes[index + 2])
    }

    /// `0`–`9`, `A`–`F` as ASCII bytes.
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    private static func appendEscape(_ byte: UInt8, to result: inout String) {
        result.append("%")
        result.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte >> 4)]))
        result.unicodeScalars.append(Unicode.Scalar(hexDigits[Int(byte & 0x0F)]))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }

    /// ALPHA / DIGIT / "-" / "." / "_" / "~"
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E: return true
        default: return false
        }
    }

    /// "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "="
    private static func isSubDelim(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x21, 0x24, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x2B, 0x2C, 0x3B, 0x3D: return true
        default: return false
        }
    }
}
