import Foundation
@testable import RxHTTP
import XCTest

final class HTTPClientErrorTests: XCTestCase {
    func testTransientErrors() {
        XCTAssertTrue(HTTPClientError(.transport).isTransient)
        XCTAssertTrue(HTTPClientError(.timedOut).isTransient)
        for status in [408, 429, 500, 502, 503, 599] {
            XCTAssertTrue(HTTPClientError(.unacceptableStatusCode, statusCode: status).isTransient, "\(status)")
        }
        for status in [400, 401, 403, 404, 409, 422, 600] {
            XCTAssertFalse(HTTPClientError(.unacceptableStatusCode, statusCode: status).isTransient, "\(status)")
        }
        for code in [HTTPClientError.Code.decodeError, .cancelled, .invalidRequest, .refreshFailed, .envelopeFailure] {
            XCTAssertFalse(HTTPClientError(code, statusCode: 503).isTransient, "\(code)")
        }
    }

    func testDescriptionIsReadableAndRedactsSecrets() throws {
        let url = try XCTUnwrap(URL(string: "https://u:pw@h.test/x?access_token=abc&page=2&myToken=zz"))
        let error = HTTPClientError(.unacceptableStatusCode, message: "status 503 is not acceptable", statusCode: 503, body: Data("oops".utf8), url: url)
        let text = error.description
        XCTAssertTrue(text.hasPrefix("HTTPClientError.unacceptableStatusCode; HTTP 503"), text)
        XCTAssertTrue(text.contains("page=2"), text)
        XCTAssertTrue(text.contains("body: 4 bytes"), text)
        for secret in ["abc", "pw@", "zz"] {
            XCTAssertFalse(text.contains(secret), "\(secret) leaked: \(text)")
        }
        XCTAssertEqual(error.localizedDescription, text)
    }

    /// A 500's description shows what the server said: a short excerpt of a text body, one line,
    /// sensitive fields redacted, bounded; a binary body only by its size.
    func testTheDescriptionShowsARedactedExcerptOfATextBody() {
        func described(_ body: String, _ type: String?) -> String {
            HTTPClientError(
                .unacceptableStatusCode, statusCode: 500, body: Data(body.utf8), url: nil,
                headers: type.map { ["Content-Type": $0] } ?? [:]
            ).description
        }
        let json = described(#"{"error":"database is down","access_token":"tok-123"}"#, "application/json")
        XCTAssertTrue(json.contains(#"body: 53 bytes: "{\"access_token\":\"<redacted>\",\"error\":\"database is down\"}""#), json)
        let text = described("Internal error\n\tAuthorization: Bearer abc.def password=hunter2&x=1", "text/plain; charset=utf-8")
        XCTAssertTrue(text.contains("Internal error Authorization: Bearer <redacted>"), text)
        XCTAssertFalse(text.contains("abc.def"), text)
        XCTAssertFalse(text.contains("hunter2"), text)
        XCTAssertTrue(text.contains("x=1"), text)
        let long = described(String(repeating: "a", count: 10_000), "text/plain")
        XCTAssertTrue(long.contains("body: 10000 bytes: \"" + String(repeating: "a", count: 160) + "…\""), long)
        XCTAssertLessThan(long.count, 400)
        let binary = HTTPClientError(
            .unacceptableStatusCode, statusCode: 500, body: Data([0xFF, 0x00, 0xFE]), url: nil, headers: ["Content-Type": "application/octet-stream"]
        ).description
        XCTAssertTrue(binary.hasSuffix("body: 3 bytes"), binary)
        let cutJSON = described("[" + String(repeating: #""x","#, count: 2_000) + #""access_token"]"#, "application/json")
        XCTAssertTrue(cutJSON.hasSuffix(" bytes") && !cutJSON.contains("access_token"), "JSON cut at 4 KiB is not shown: \(cutJSON)")
    }

    /// `HTTPClient(host: "127.0.0.1:8080")` means https; a TLS handshake answered in plain HTTP
    /// says what to do.
    func testATLSHandshakeAnsweredInPlainHTTPSuggestsHTTP() throws {
        let url = try XCTUnwrap(URL(string: "https://127.0.0.1:18081/x"))
        let openSSL = NSError(domain: NSURLErrorDomain, code: NSURLErrorSecureConnectionFailed, userInfo: [
            NSLocalizedDescriptionKey: "OpenSSL SSL_connect: error:0A00010B:SSL routines::wrong version number",
        ])
        let error = URLErrorClassification.classify(openSSL, url: url)
        XCTAssertTrue(error.description.contains("did you mean http://127.0.0.1:18081?"), error.description)
        let plain = try XCTUnwrap(URL(string: "http://127.0.0.1:18081/x"))
        XCTAssertFalse(URLErrorClassification.classify(openSSL, url: plain).description.contains("did you mean"))
    }

    func testClassifiesSystemErrors() {
        func code(_ urlErrorCode: Int) -> HTTPClientError.Code {
            URLErrorClassification.classify(NSError(domain: NSURLErrorDomain, code: urlErrorCode), url: nil).code
        }
        XCTAssertEqual(code(NSURLErrorTimedOut), .timedOut)
        XCTAssertEqual(code(NSURLErrorCancelled), .cancelled)
        XCTAssertEqual(code(NSURLErrorCannotConnectToHost), .transport)
        XCTAssertEqual(code(NSURLErrorNetworkConnectionLost), .transport)
        XCTAssertEqual(code(NSURLErrorBadURL), .invalidRequest)
        XCTAssertEqual(URLErrorClassification.classify(HTTPClientError(.refreshFailed), url: nil).code, .refreshFailed)
    }
}
