import Foundation

/// Checks how a response says its body is framed (RFC 9112 §6.3) before the body is trusted.
///
/// An error: several `Content-Length` values that differ (URLSession joins repeated fields as
/// `"5, 10"`), a value that is not a plain decimal number or does not fit in 63 bits
/// (`99999999999999999999999`), or `Content-Length` together with `Transfer-Encoding`. Any of them
/// means the sender and we may disagree where this response ends and the next begins, so the
/// exchange fails with `.invalidResponse` and the connection must not be reused.
///
/// Shared with the transports in sibling packages through `@_spi(TransportSupport)`, so that every
/// transport judges framing alike; not API.
@_spi(TransportSupport)
public struct ResponseFraming: Sendable, Equatable {
    /// The announced body length, if any.
    public let contentLength: Int64?
    /// Whether the body is content-encoded (gzip…): its decoded size differs from `contentLength`.
    public let isContentEncoded: Bool
    /// Whether the response can have no body at all (HEAD, 1xx, 204, 304).
    public let hasNoBody: Bool

    /// Validates the framing headers of a response.
    public static func validate(headers: HTTPHeaders, statusCode: Int, method: String?, url: URL?) throws(HTTPClientError) -> ResponseFraming {
        var lengthField, encodingField, transferEncoding: String?
        framingFieldNames.forEachValue(in: headers, combining: true) { index, value in
            switch index {
            case 0: lengthField = value
            case 1: encodingField = value
            default: transferEncoding = value
            }
        }
        let isHead = method.map { HeaderFields.equalsIgnoringASCIICase($0, "HEAD") } ?? false
        let hasNoBody = isHead || (100..<200).contains(statusCode) || statusCode == 204 || statusCode == 304
        let encoding = encodingField?.trimmingCharacters(in: .whitespaces).lowercased()
        let isContentEncoded = !(encoding?.isEmpty ?? true) && encoding != "identity"
        guard let lengthField else {
            return ResponseFraming(contentLength: nil, isContentEncoded: isContentEncoded, hasNoBody: hasNoBody)
        }
        if transferEncoding != nil {
            throw invalid("the response has both Content-Length and Transfer-Encoding", statusCode, headers, url)
        }
        // A comma-separated list of equal values is allowed; read in place, part by part.
        var length: Int64?
        var rest = Substring(lengthField)
        while true {
            let comma = rest.utf8.firstIndex(of: UInt8(ascii: ","))
            guard let value = parseLength(rest[..<(comma ?? rest.endIndex)]) else {
                throw invalid("the response's Content-Length \(HeaderValidation.escaped(String(lengthField.prefix(64)))) is not a valid length", statusCode, headers, url)
            }
            if let length, length != value {
                throw invalid("the response has conflicting Content-Length values (\(String(lengthField.prefix(64))))", statusCode, headers, url)
            }
            length = value
            guard let comma else { break }
            rest = rest[rest.utf8.index(after: comma)...]
        }
        return ResponseFraming(contentLength: length, isContentEncoded: isContentEncoded, hasNoBody: hasNoBody)
    }

    /// The fields `validate(headers:statusCode:method:url:)` reads, in the order it indexes them.
    private static let framingFieldNames = HeaderFieldNames("Content-Length", "Content-Encoding", "Transfer-Encoding")

    /// Checks a complete body against the announced length: a shorter body means the connection
    /// closed mid-response, a `.transport` failure (phase `.responded`) as when the transport itself
    /// notices it.
    public func validate(bodyCount: Int, statusCode: Int, headers: HTTPHeaders, url: URL?) throws(HTTPClientError) {
        guard let contentLength, !isContentEncoded, !hasNoBody, Int64(bodyCount) != contentLength else { return }
        throw HTTPClientError(
            .transport,
            message: "the connection closed after \(bodyCount) of the \(contentLength) body bytes announced",
            statusCode: statusCode, url: url, headers: headers, phase: .responded
        )
    }

    /// 1 to 18 ASCII digits (anything longer could overflow) between optional spaces and tabs,
    /// else nil. Read on UTF-8 bytes: trimming with a `CharacterSet` cost more than the whole parse.
    static func parseLength<Text: StringProtocol>(_ text: Text) -> Int64? {
        var digits = 0
        var value: Int64 = 0
        var trailing = false
        for byte in text.utf8 {
            switch byte {
            case 0x20, 0x09:
                if digits > 0 { trailing = true }
            case 0x30...0x39 where !trailing && digits < 18:
                digits += 1
                value = value * 10 + Int64(byte - 0x30)
            default:
                return nil
            }
        }
        return digits > 0 ? value : nil
    }

    private static func invalid(_ message: String, _ statusCode: Int, _ headers: HTTPHeaders, _ url: URL?) -> HTTPClientError {
        HTTPClientError(.invalidResponse, message: message, statusCode: statusCode, url: url, headers: headers, phase: .responded)
    }
}
