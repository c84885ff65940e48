import Foundation

/// Hides secrets in what is logged: header values, query values and URL passwords.
enum Redaction {
    static let placeholder = "<redacted>"

    /// Header names (lower case) whose values are never logged.
    static let defaultHeaderNames: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie",
        "x-api-key", "x-auth-token", "x-access-token", "x-csrf-token",
    ]

    /// Query parameter names (lower case) whose values are never logged; any name containing
    /// `token`, `password`, `secret` or `apikey`/`api_key` is redacted as well.
    static let defaultQueryNames: Set<String> = [
        "access_token", "refresh_token", "id_token", "token", "api_key", "apikey", "api-key", "key",
        "password", "passwd", "pwd", "secret", "client_secret", "signature", "sig", "auth", "code",
    ]

    private static let sensitiveFragments = ["token", "password", "secret", "apikey", "api_key", "api-key"]

    static func isSensitiveQueryName(_ name: String, names: Set<String>) -> Bool {
        let lowered = (name.removingPercentEncoding ?? name).lowercased()
        return names.contains(lowered) || sensitiveFragments.contains { lowered.contains($0) }
    }

    /// The URL as text with sensitive query values and any password replaced by `<redacted>`.
    static func redactedURLString(_ url: URL, queryNames: Set<String>) -> String {
        var text = url.absoluteString
        if let password = url.password(percentEncoded: true), !password.isEmpty,
           let range = text.range(of: ":" + password + "@") {
            text.replaceSubrange(range, with: ":" + placeholder + "@")
        }
        guard let mark = text.firstIndex(of: "?") else { return text }
        let head = text[..<mark]
        var rest = text[text.index(after: mark)...]
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        let items = rest.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
            guard let equals = item.firstIndex(of: "=") else { return String(item) }
            let name = String(item[..<equals])
            return isSensitiveQueryName(name, names: queryNames) ? name + "=" + placeholder : String(item)
        }
        return head + "?" + items.joined(separator: "&") + fragment
    }

    /// The headers sorted by name, sensitive values replaced by `<redacted>`.
    static func redactedHeaders(_ headers: [String: String], names: Set<String>) -> [(String, String)] {
        headers.sorted { $0.key.lowercased() < $1.key.lowercased() }.map { name, value in
            (name, names.contains(name.lowercased()) ? placeholder : value)
        }
    }
}
