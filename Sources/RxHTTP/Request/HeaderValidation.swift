import Foundation

/// Checks header names, header values and method names before anything is sent.
///
/// Works on unicode scalars, never on `Character`s: `"\r\n"` is a single `Character` equal to
/// neither `"\r"` nor `"\n"`, so a `Character`-based check lets CRLF through.
///
/// `validate(_:url:)` is shared with the transports in sibling packages through
/// `@_spi(TransportSupport)`; not API.
@_spi(TransportSupport)
public enum HeaderValidation {
    /// Whether `name` is an RFC 9110 token: one or more of ALPHA, DIGIT and ``!#$%&'*+-.^_`|~``.
    ///
    /// Checked on UTF-8 bytes: a token is ASCII, so any byte of a multi-byte scalar fails it.
    static func isValidToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isTokenByte)
    }

    /// Whether `value` may be sent as a header value: no CR, LF, NUL, other control characters
    /// (horizontal tab is allowed) or DEL. On UTF-8 bytes: every byte of a multi-byte scalar is
    /// 0x80 or more, so only ASCII control bytes can fail it, as on scalars.
    static func isValidValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { byte in byte == 0x09 || (byte >= 0x20 && byte != 0x7F) }
    }

    /// Throws `.invalidRequest` naming the first bad header (its value is not echoed: it may be a
    /// secret).
    public static func validate(_ headers: [String: String], url: URL?) throws(HTTPClientError) {
        for (name, value) in headers {
            try validate(name: name, value: value, url: url)
        }
    }

    /// Throws `.invalidRequest` naming the first bad field of `headers`, every line of a repeated
    /// field checked (its value is not echoed).
    public static func validate(_ headers: HTTPHeaders, url: URL?) throws(HTTPClientError) {
        for (name, value) in headers {
            try validate(name: name, value: value, url: url)
        }
    }

    private static func validate(name: String, value: String, url: URL?) throws(HTTPClientError) {
        guard isValidToken(name) else {
            throw HTTPClientError(.invalidRequest, message: "header name \(escaped(name)) is not a valid HTTP token", url: url)
        }
        guard isValidValue(value) else {
            throw HTTPClientError(
                .invalidRequest,
                message: "the value of header \(name) contains CR, LF or another forbidden control character",
                url: url
            )
        }
    }

    /// The name with control characters made visible, for error messages.
    static func escaped(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            result += scalar.escaped(asASCII: true)
        }
        return result + "\""
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}

/// Case-insensitive helpers over `[String: String]` header dictionaries.
enum HeaderFields {
    /// The value of `name`, compared case-insensitively.
    ///
    /// Header names are ASCII tokens, so the comparison folds ASCII letters only, on UTF-8 bytes
    /// and without allocating: this runs several times per response (framing, decoding), and
    /// `lowercased()` on every key of every response cost ~10 µs a response.
    static func value(_ name: String, in headers: [String: String]) -> String? {
        if let exact = headers[name] { return exact }
        for (key, value) in headers where equalsIgnoringASCIICase(key, name) {
            return value
        }
        return nil
    }

    /// Whether `a` and `b` are equal once ASCII letters are folded to lower case.
    static func equalsIgnoringASCIICase(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { left in
            b.withUTF8 { right in
                guard left.count == right.count else { return false }
                for index in 0..<left.count {
                    let x = left[index]
                    let y = right[index]
                    guard x == y || (x | 0x20 == y | 0x20 && (0x61...0x7A).contains(x | 0x20)) else { return false }
                }
                return true
            }
        }
    }

    /// Sets `name` to `value`, replacing any entry whose name differs only in case.
    static func set(_ value: String, for name: String, in headers: inout [String: String]) {
        let lowered = name.lowercased()
        for key in headers.keys where key.lowercased() == lowered {
            headers[key] = nil
        }
        headers[name] = value
    }

    /// `base` overridden by `overrides`, names compared case-insensitively.
    static func merging(_ base: [String: String], _ overrides: [String: String]) -> [String: String] {
        var result = base
        for (name, value) in overrides {
            set(value, for: name, in: &result)
        }
        return result
    }
}
