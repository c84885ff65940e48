import Foundation

/// A short excerpt of a response body for an error's description, so that a 500 says what the
/// server said (`body: 58 bytes: "{\"error\":\"database is down\"}"`) and not only its size.
///
/// Bounded and redacted: only a text body is excerpted (text, JSON, XML, a form, or no content
/// type and UTF-8), at most the first 4 KiB are looked at and 160 characters shown; JSON and form
/// bodies have their sensitive fields redacted as logs do, and free text its `Bearer`/`Basic`
/// credentials and sensitive `name=value` or `name: value` pairs. Control characters and quotes
/// are escaped, so the excerpt stays on one line.
enum BodyExcerpt {
    /// The most characters shown.
    static let limit = 160
    /// The most bytes looked at.
    static let window = 4_096

    /// `"N bytes"`, followed by the excerpt when the body is text.
    static func describe(_ body: Data, contentType: String?) -> String {
        let size = "\(body.count) bytes"
        guard let text = excerpt(body, contentType: contentType), !text.isEmpty else { return size }
        return size + ": \"" + text + "\""
    }

    static func excerpt(_ body: Data, contentType: String?) -> String? {
        let type = contentType?.lowercased() ?? ""
        let textual = type.isEmpty || type.hasPrefix("text/") || type.contains("json") || type.contains("xml")
            || type.contains("x-www-form-urlencoded")
        guard textual, !body.isEmpty else { return nil }
        let head = body.prefix(window)
        let redacted: String
        if body.count <= window, let json = Redaction.standard.json(body) {
            redacted = json
        } else {
            guard let text = utf8(head, whole: body.count <= window) else { return nil }
            if type.contains("x-www-form-urlencoded") {
                redacted = Redaction.standard.parameters(Substring(text))
            } else if type.contains("json") {
                // JSON cut at the window cannot be parsed to find its sensitive fields: not shown.
                return nil
            } else {
                redacted = freeText(text)
            }
        }
        return oneLine(redacted)
    }

    /// The bytes as UTF-8; a sequence cut at the end of the window is dropped, anything else
    /// invalid means the body is not text.
    private static func utf8(_ bytes: Data, whole: Bool) -> String? {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        guard !whole else { return nil }
        for cut in 1...3 where bytes.count > cut {
            if let text = String(validating: bytes.dropLast(cut), as: UTF8.self) { return text }
        }
        return nil
    }

    /// Free text with what looks like a credential replaced: the word after `Bearer` or `Basic`,
    /// the value of a sensitive `name=value` (form-like runs too) and of a sensitive `name:`.
    private static func freeText(_ text: String) -> String {
        let redaction = Redaction.standard
        var words: [Substring] = []
        var hideNext = false
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }) {
            let lower = word.lowercased()
            let isScheme = lower == "bearer" || lower == "basic"
            if hideNext, !isScheme {
                words.append(Substring(Redaction.placeholder))
                hideNext = false
                continue
            }
            if isScheme {
                hideNext = true
            } else if word.hasSuffix(":"), redaction.isSensitive(String(word.dropLast())) {
                hideNext = true
            }
            words.append(word.contains("=") ? Substring(redaction.parameters(word)) : word)
        }
        return words.joined(separator: " ")
    }

    /// Whitespace runs as one space, other control characters and quotes escaped, at most `limit`
    /// characters.
    private static func oneLine(_ text: String) -> String {
        var result = ""
        var count = 0
        var lastWasSpace = false
        for character in text {
            guard count < limit else {
                result += "…"
                break
            }
            if character.isWhitespace {
                if !lastWasSpace, count > 0 { result.append(" "); count += 1 }
                lastWasSpace = true
                continue
            }
            lastWasSpace = false
            if character == "\"" || character == "\\" {
                result += "\\" + String(character)
            } else if let scalar = character.unicodeScalars.first, character.unicodeScalars.count == 1,
                      scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
                result += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                result.append(character)
            }
            count += 1
        }
        return result.hasSuffix(" ") ? String(result.dropLast()) : result
    }
}
