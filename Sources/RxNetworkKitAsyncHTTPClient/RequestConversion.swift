// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@_spi(TransportSupport) import RxHTTP

/// The one conversion between Foundation's request and AsyncHTTPClient's, per hop, and of NIO's
/// response headers into the client's dictionary.
enum RequestConversion {
    /// AsyncHTTPClient's request for `request`.
    ///
    /// - Throws: `HTTPClientError(.invalidRequest)` (nothing sent) for a URL AsyncHTTPClient cannot
    ///   send, a method that is not a token, or a header with CR, LF or another forbidden byte.
    static func request(from request: URLRequest, offeringCompression: Bool) throws -> AsyncHTTPClient.HTTPClient.Request {
        guard let url = request.url else {
            throw RxHTTP.HTTPClientError(.invalidRequest, message: "the request has no URL", phase: .notSent)
        }
        let fields = request.allHTTPHeaderFields ?? [:]
        try HeaderValidation.validate(fields, url: url)
        var headers = HTTPHeaders()
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
        let method = NIOHTTP1.HTTPMethod(rawValue: request.httpMethod ?? "GET")
        let body = request.httpBody.map { AsyncHTTPClient.HTTPClient.Body.bytes($0) }
        do {
            return try AsyncHTTPClient.HTTPClient.Request(url: url, method: method, headers: headers, body: body)
        } catch {
            throw RxHTTP.HTTPClientError(
                .invalidRequest, message: "the transport cannot send this URL", url: url, underlying: error, phase: .notSent
            )
        }
    }

    /// NIO's headers as the client's dictionary; repeated fields are joined with ", " as URLSession
    /// joins them.
    static func dictionary(_ headers: HTTPHeaders) -> [String: String] {
        var result: [String: String] = [:]
        result.reserveCapacity(headers.count)
        for (name, value) in headers {
            if let existing = result[name] {
                result[name] = existing + ", " + value
            } else {
                result[name] = value
            }
        }
        return result
    }
}
#endif
