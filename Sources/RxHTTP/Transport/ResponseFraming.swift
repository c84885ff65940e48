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
    public static func validate(headers: [String: String], statusCode: Int, method: String?, url: URL?) throws(HTTPClientError) -> ResponseFraming {
        let lengthField = HeaderFields.value("Content-Length", in: headers)
        let hasNoBody = method?.uppercased() == "HEAD" || (100..<200).contains(statusCode) || statusCode == 204 || statusCode == 304
        let encoding = HeaderFields.value("Content-Encoding", in: headers)?.trimmingCharacters(in: .whitespaces).lowercased()
        let isContentEncoded = !(encoding?.isEmpty ?? true) && encoding != "identity"
        guard let lengthField else {
            return ResponseFraming(contentLength: nil, isContentEncoded: isContentEncoded, hasNoBody: hasNoBody)
        }
        if HeaderFields.value("Transfer-Encoding", in: headers) != nil {
            throw invalid("the response has both Content-Length and Transfer-Encoding", statusCode, headers, url)
        }
        var length: Int64?
        for part in lengthField.split(separator: ",", omittingEmptySubsequences: false) {
            let text = part.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            guard let value = parseLength(text) else {
                throw invalid("the response's Content-Length \(HeaderValidation.escaped(String(lengthField.prefix(64)))) is not a valid length", statusCode, headers, url)
            }
            if let length, length != value {
                throw invalid("the response has conflicting Content-Length values (\(String(lengthField.prefix(64))))", statusCode, headers, url)
            }
            length = value
        }
        return ResponseFraming(contentLength: length, isContentEncoded: isContentEncoded, hasNoBody: hasNoBody)
    }

    /// Checks a complete body against the announced length: a shorter body means the connection
    /// closed mid-response, a `.transport` failure (phase `.responded`) as when the transport itself
    /// notices it.
    public func validate(bodyCount: Int, statusCode: Int, headers: [String: String], url: URL?) throws(HTTPClientError) {
        guard let contentLength, !isContentEncoded, !hasNoBody, Int64(bodyCount) != contentLength else { return }
        throw HTTPClientError(
            .transport,
            message: "the connection closed after \(bodyCount) of the \(contentLength) body bytes announced",
            statusCode: statusCode, url: url, headers: headers, phase: .responded
        )
    }

    /// 1 to 18 ASCII digits (anything longer could overflow), else nil.
    static func parseLength(_ text: String) -> Int64? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }

    private static func invalid(_ message: String, _ statusCode: Int, _ headers: [String: String], _ url: URL?) -> HTTPClientError {
        HTTPClientError(.invalidResponse, message: message, statusCode: statusCode, url: url, headers: headers, phase: .responded)
    }
}
