import Foundation

/// The rules that keep secrets out of log lines, events and error descriptions.
///
/// A name — of a header, a query parameter, a form field or a JSON key — is sensitive when, compared
/// case-insensitively after percent-decoding, it is in `names` (the fixed list plus any additions),
/// or it contains one of the fragments `token`, `secret`, `password`, `passwd`, `auth`, `session`,
/// `cookie`, `key`, `signature`, `credential`; unless it is in `exemptNames` (`Idempotency-Key`,
/// which identifies a call, and the standard CORS and challenge headers, which name headers and
/// schemes, never values). Redacting by rule, not by list alone, catches `X-Refresh-Token`,
/// `Private-Token`, `X-Amz-Security-Token` and names nobody listed. A name caught only by a
/// fragment keeps a value that cannot be a secret: `true`, `false` or a number (`"authenticated":
/// true`); a listed name is redacted whatever its value (a numeric API key is still a key).
///
/// Values of sensitive names become `<redacted>`; so does a password in a URL's user info. URLs are
/// redacted wherever they are printed: the request URL, `Location` and any header value with a
/// query, the URL inside an error.
struct Redaction: Sendable {
    static let placeholder = "<redacted>"

    /// Header names (lower case) always redacted.
    static let defaultHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie",
        "x-api-key", "x-auth-token", "x-access-token", "x-csrf-token",
    ]

    /// Query, form and JSON field names (lower case) always redacted.
    static let defaultFieldNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "api-key", "key",
        "password", "passwd", "pwd", "secret", "client_secret", "signature", "sig", "auth", "code",
        "assertion", "client_assertion",
    ]

    /// Fragments that make any name sensitive.
    static let sensitiveFragments = [
        "token", "secret", "password", "passwd", "auth", "session", "cookie", "key", "signature", "credential",
    ]

    /// Names (lower case) that contain a fragment but are not secrets.
    static let exemptNames: Set<String> = [
        "idempotency-key",
        "access-control-allow-credentials", "access-control-allow-headers", "access-control-expose-headers",
        "access-control-request-headers", "www-authenticate", "proxy-authenticate",
    ]

    /// The rules with the default lists and nothing added.
    static let standard = Redaction(additionalNames: [])

    /// Every name redacted besides those matched by a fragment (lower case).
    let names: Set<String>

    /// The default lists plus `additionalNames` (compared case-insensitively).
    init(additionalNames: Set<String>) {
        names = Self.defaultHeaderNames
            .union(Self.defaultFieldNames)
            .union(additionalNames.map { $0.lowercased() })
    }

    /// Whether values under `name` are secrets.
    func isSensitive(_ name: String) -> Bool {
        sensitivity(of: name) != .none
    }

    /// Whether `value` under `name` is to be redacted: always for a listed name, and for a name
    /// caught by a fragment unless the value is `true`, `false` or a number.
    func isSecret(_ value: String, under name: String) -> Bool {
        switch sensitivity(of: name) {
        case .none: return false
        case .listed: return true
        case .byFragment: return !Self.cannotBeSecret(value)
        }
    }

    private enum Sensitivity {
        case none
        case listed
        case byFragment
    }

    private func sensitivity(of name: String) -> Sensitivity {
        let decoded = name.utf8.contains(UInt8(ascii: "%")) ? (name.removingPercentEncoding ?? name) : name
        let lowered = decoded.lowercased()
        if Self.exemptNames.contains(lowered) { return .none }
        if names.contains(lowered) { return .listed }
        return Self.sensitiveFragments.contains { lowered.contains($0) } ? .byFragment : .none
    }

    /// `true`, `false`, or a plain decimal number (at most 32 characters).
    static func cannotBeSecret(_ value: String) -> Bool {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if trimmed == "true" || trimmed == "false" { return true }
        guard !trimmed.isEmpty, trimmed.utf8.count <= 32 else { return false }
        var digits = 0
        for byte in trimmed.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits += 1
            case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): continue
            default: return false
            }
        }
        return digits > 0
    }

    // MARK: URLs

    /// The URL as text, with sensitive query and fragment parameters and any password redacted.
    func url(_ url: URL) -> String {
        urlString(url.absoluteString)
    }

    /// A URL (or any text with a `?query` or `#fragment`) with sensitive parameters and a
    /// user-info password redacted; a relative reference (`/next?token=…`) works too.
    func urlString(_ text: String) -> String {
        urlString(text, placeholder: Self.placeholder)
    }

    /// The same, with `placeholder` in place of each secret.
    func urlString(_ text: String, placeholder: String) -> String {
        // Scanned on UTF-8 bytes (Character-based scanning cost tens of thousands of instructions
        // per URL); a URL without a query, a fragment or user info is returned as it is.
        let bytes = text.utf8
        let hash = bytes.firstIndex(of: UInt8(ascii: "#"))
        let beforeFragment = bytes[..<(hash ?? bytes.endIndex)]
        let mark = beforeFragment.firstIndex(of: UInt8(ascii: "?"))
        let head = Substring(text.utf8[..<(mark ?? hash ?? bytes.endIndex)])
        let hasUserInfo = head.utf8.contains(UInt8(ascii: "@"))
        guard mark != nil || hash != nil || hasUserInfo else { return text }
        var result = hasUserInfo ? Self.redactingUserInfoPassword(head, placeholder: placeholder) : String(head)
        if let mark {
            let query = Substring(text.utf8[bytes.index(after: mark)..<(hash ?? bytes.endIndex)])
            result += "?" + parameters(query, placeholder: placeholder)
        }
        if let hash {
            let fragment = Substring(text.utf8[bytes.index(after: hash)...])
            result += "#" + parameters(fragment, placeholder: placeholder)
        }
        return result
    }

    /// `user:password@` in the authority becomes `user:<redacted>@`.
    private static func redactingUserInfoPassword(_ head: Substring, placeholder: String) -> String {
        guard let schemeEnd = head.range(of: "://") else { return String(head) }
        let authorityStart = schemeEnd.upperBound
        let authorityEnd = head[authorityStart...].firstIndex(of: "/") ?? head.endIndex
        let authority = head[authorityStart..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"),
              let colon = authority[..<at].firstIndex(of: ":") else { return String(head) }
        return String(head[..<authority.index(after: colon)]) + placeholder + String(head[at...])
    }

    /// `a=1&token=x` with sensitive values redacted; items without `=` are kept.
    func parameters(_ text: Substring, placeholder: String = Redaction.placeholder) -> String {
        text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: UInt8(ascii: "=")) else { return String(Substring(item)) }
            let rawName = String(Substring(item[..<equals]))
            let name = rawName.utf8.contains(UInt8(ascii: "+")) ? rawName.replacingOccurrences(of: "+", with: " ") : rawName
            return isSensitive(name) ? rawName + "=" + placeholder : String(Substring(item))
        }.joined(separator: "&")
    }

    // MARK: Errors

    /// A copy of a system error with every URL and text in its user info redacted (what an
    /// `HTTPClientError` wraps): `String(describing:)` of it shows no token. A `URLError` stays a
    /// `URLError` with the same code; errors without URLs or strings are returned as they are.
    func error(_ error: any Error) -> any Error {
        let nsError = error as NSError
        guard nsError.domain == NSURLErrorDomain || nsError.userInfo.values.contains(where: { $0 is URL || $0 is String }) else {
            return error
        }
        let info = userInfo(nsError.userInfo, depth: 0)
        if nsError.domain == NSURLErrorDomain, let code = URLError.Code(rawValue: nsError.code) {
            return URLError(code, userInfo: info)
        }
        return NSError(domain: nsError.domain, code: nsError.code, userInfo: info)
    }

    private func userInfo(_ info: [String: Any], depth: Int) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in info {
            switch value {
            case let url as URL:
                // Still a URL (the placeholder percent-encoded), for code that reads the failing URL.
                let text = urlString(url.absoluteString, placeholder: "%3Credacted%3E")
                result[key] = URL(string: text) ?? URL(string: "about:blank")
            case let text as String:
                result[key] = urlString(text)
            case let nested as NSError where depth < 4:
                let inner = userInfo(nested.userInfo, depth: depth + 1)
                result[key] = NSError(domain: nested.domain, code: nested.code, userInfo: inner)
            case let number as NSNumber:
                result[key] = number
            default:
                // Unknown values may print anything: left out.
                continue
            }
        }
        return result
    }

    // MARK: Headers and bodies

    /// The headers sorted by name: sensitive values replaced, URLs in values redacted.
    func headers(_ headers: [String: String]) -> [(String, String)] {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map(field)
    }

    /// A message's header lines as loggable pairs, in their order, redacted as above.
    func headers(_ headers: HTTPHeaders) -> [(String, String)] {
        headers.map { field($0.name, $0.value) }
    }

    private func field(_ name: String, _ value: String) -> (String, String) {
        if isSecret(value, under: name) { return (name, Self.placeholder) }
        return (name, value.contains("?") || value.contains("#") ? urlString(value) : value)
    }

    /// A body as loggable text: form and JSON bodies with sensitive fields redacted, at most
    /// `limit` characters; anything else only as its size and type.
    func body(_ data: Data, contentType: String?, limit: Int) -> String {
        let type = contentType?.lowercased() ?? ""
        var text: String?
        if type.contains("x-www-form-urlencoded"), let form = String(data: data, encoding: .utf8) {
            text = parameters(Substring(form))
        } else if type.contains("json"), let redacted = json(data) {
            text = redacted
        }
        guard let text else {
            return "\(data.count) bytes" + (contentType.map { " of \($0)" } ?? "")
        }
        return text.count > limit ? String(text.prefix(limit)) + "… (\(data.count) bytes)" : text
    }

    /// The JSON text with the values of sensitive keys redacted at any depth, keys sorted; nil if
    /// `data` is not JSON.
    func json(_ data: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
              let redacted = try? JSONSerialization.data(
                withJSONObject: redactingJSON(object, depth: 0), options: [.sortedKeys, .fragmentsAllowed]
              ) else { return nil }
        return String(decoding: redacted, as: UTF8.self)
    }

    private func redactingJSON(_ value: Any, depth: Int) -> Any {
        // JSONSerialization already bounds nesting; this bound keeps the walk cheap regardless.
        guard depth < 64 else { return Self.placeholder }
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (key, element) in object {
                if redacts(element, under: key) {
                    result[key] = Self.placeholder
                } else {
                    result[key] = redactingJSON(element, depth: depth + 1)
                }
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redactingJSON($0, depth: depth + 1) }
        }
        return value
    }

    /// Whether the JSON `value` under `key` is redacted: a listed key always, a key caught by a
    /// fragment unless the value is a boolean or a number.
    private func redacts(_ value: Any, under key: String) -> Bool {
        switch sensitivity(of: key) {
        case .none: return false
        case .listed: return true
        case .byFragment: return !(value is NSNumber)
        }
    }
}
