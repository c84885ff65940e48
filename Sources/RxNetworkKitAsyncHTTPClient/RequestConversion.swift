// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@_spi(TransportSupport) import RxHTTP

/// The one conversion from the client's request value to AsyncHTTPClient's, per hop, and of NIO's
/// response headers into the client's `HTTPHeaders`.
enum RequestConversion {
    /// AsyncHTTPClient's request for `request`.
    ///
    /// - Parameters:
    ///   - headersAreChecked: The headers passed `HeaderValidation` already (the client's
    ///     requests): not checked again.
    ///   - onUploadStart: Receives a file body's ending each time AsyncHTTPClient starts sending it.
    /// - Throws: `HTTPClientError(.invalidRequest)` (nothing sent) for a URL AsyncHTTPClient cannot
    ///   send, a method that is not a token, or a header with CR, LF or another forbidden byte.
    static func request(
        from request: HTTPTransportRequest, offeringCompression: Bool, headersAreChecked: Bool = false,
        eventLoopGroup: any EventLoopGroup, onUploadStart: @escaping @Sendable (FileBodyStream.Ending) -> Void = { _ in }
    ) throws -> AsyncHTTPClient.HTTPClient.Request {
        let url = request.url
        let fields = request.headers
        if !headersAreChecked {
            try HeaderValidation.validate(fields, url: url)
        }
        // Line by line, in order, repeated fields kept: no dictionary on the way.
        var headers = NIOHTTP1.HTTPHeaders()
        headers.reserveCapacity(fields.count + 1)
        var hasAcceptEncoding = false
        for (name, value) in fields {
            headers.add(name: name, value: value)
            if !hasAcceptEncoding, name.utf8.count == 15, name.lowercased() == "accept-encoding" {
                hasAcceptEncoding = true
            }
        }
        if offeringCompression, !hasAcceptEncoding {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        let method = NIOHTTP1.HTTPMethod(rawValue: request.method.rawValue)
        let body: AsyncHTTPClient.HTTPClient.Body?
        switch request.body {
        case .empty: body = nil
        case .bytes(let data): body = .bytes(data)
        case .file(let file): body = FileBodyStream.body(file, eventLoop: eventLoopGroup.next(), onStart: onUploadStart)
        }
        do {
            return try AsyncHTTPClient.HTTPClient.Request(url: url, method: method, headers: headers, body: body)
        } catch {
            throw RxHTTP.HTTPClientError(
                .invalidRequest, message: "the transport cannot send this URL", url: url, underlying: error, phase: .notSent
            )
        }
    }

    /// Where an upgrade request goes and the head it sends, written as given (no header added but
    /// `Host` when the request has none).
    ///
    /// - Throws: `HTTPClientError(.invalidRequest)` (nothing sent) for a URL that is not http(s) or
    ///   ws(s) with a host, a method that is not a token, a forbidden byte in a header, or a body
    ///   (a handshake has none).
    static func upgradeRequest(from request: HTTPTransportRequest) throws(RxHTTP.HTTPClientError) -> (target: UpgradeTarget, head: HTTPRequestHead) {
        let url = request.url
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw RxHTTP.HTTPClientError(.invalidRequest, message: "the URL cannot be split into its parts", url: url, phase: .notSent)
        }
        guard let target = UpgradeTarget(url) else {
            throw RxHTTP.HTTPClientError(
                .invalidRequest, message: "the transport can switch protocols on http and https URLs with a host only",
                url: url, phase: .notSent
            )
        }
        let method = request.method.rawValue
        guard !method.isEmpty, method.utf8.allSatisfy(isTokenByte) else {
            throw RxHTTP.HTTPClientError(.invalidRequest, message: "the method is not a valid HTTP token", url: url, phase: .notSent)
        }
        guard request.body.count == 0 else {
            throw RxHTTP.HTTPClientError(.invalidRequest, message: "a protocol switch request has no body", url: url, phase: .notSent)
        }
        let fields = request.headers
        try HeaderValidation.validate(fields, url: url)
        var headers = NIOHTTP1.HTTPHeaders()
        headers.reserveCapacity(fields.count + 1)
        for (name, value) in fields {
            headers.add(name: name, value: value)
        }
        if !headers.contains(name: "Host") {
            headers.add(name: "Host", value: target.hostHeader)
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let uri = components.percentEncodedQuery.map { path + "?" + $0 } ?? path
        let head = HTTPRequestHead(version: .http1_1, method: NIOHTTP1.HTTPMethod(rawValue: method), uri: uri, headers: headers)
        return (target, head)
    }

    /// Whether `byte` may appear in an RFC 9110 token (a method).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// NIO's response headers as the client's: every line kept, in order (two `WWW-Authenticate`
    /// challenges stay two, unlike URLSession's combined value).
    static func headers(_ headers: NIOHTTP1.HTTPHeaders) -> RxHTTP.HTTPHeaders {
        // Line by line through the inlinable `add`: the generic initializer would run unspecialized
        // across the module boundary (13,500 more instructions per response, callgrind).
        var converted = RxHTTP.HTTPHeaders()
        converted.reserveCapacity(headers.count)
        for (name, value) in headers {
            converted.add(name: name, value: value)
        }
        return converted
    }
}
#endif
