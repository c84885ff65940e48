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
