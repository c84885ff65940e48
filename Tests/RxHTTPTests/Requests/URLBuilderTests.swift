import Foundation
@testable import RxHTTP
import RxTesting
import XCTest

final class URLBuilderTests: XCTestCase {
    private func url(_ base: String, _ path: String, _ parameters: [(String, String)] = []) throws -> String {
        let baseURL = try XCTUnwrap(URL(string: base))
        return try URLBuilder.url(base: baseURL, path: path, parameters: parameters).absoluteString
    }

    func testJoinsWithExactlyOneSlash() throws {
        XCTAssertEqual(try url("https://h.test", "users"), "https://h.test/users")
        XCTAssertEqual(try url("https://h.test", "/users"), "https://h.test/users")
        XCTAssertEqual(try url("https://h.test/", "/users"), "https://h.test/users")
        XCTAssertEqual(try url("https://h.test/v1/", "//users"), "https://h.test/v1/users")
        XCTAssertEqual(try url("https://h.test/v1", "users/"), "https://h.test/v1/users/")
        XCTAssertEqual(try url("https://h.test", ""), "https://h.test/")
        XCTAssertEqual(try url("http://127.0.0.1:8080/api", "/x"), "http://127.0.0.1:8080/api/x")
    }

    func testPercentEncodesPathsOnUTF8Bytes() throws {
        XCTAssertEqual(try url("https://h.test", "/a b/ü/日本"), "https://h.test/a%20b/%C3%BC/%E6%97%A5%E6%9C%AC")
        XCTAssertEqual(try url("https://h.test", "/tag/#1"), "https://h.test/tag/%231")
        XCTAssertEqual(try url("https://h.test", "/files/a%20b"), "https://h.test/files/a%20b", "valid escapes are kept")
        XCTAssertEqual(try url("https://h.test", "/100%/x"), "https://h.test/100%25/x", "a lone % is escaped")
        XCTAssertEqual(try url("https://h.test", "/a\r\nb"), "https://h.test/a%0D%0Ab", "CRLF cannot split the request line")
    }

    func testKeepsAQueryInThePathAndAppendsParameters() throws {
        XCTAssertEqual(try url("https://h.test", "/search?q=swift nio", [("page", "2")]),
                       "https://h.test/search?q=swift%20nio&page=2")
        XCTAssertEqual(try url("https://h.test", "/search?", [("a", "1")]), "https://h.test/search?a=1")
        XCTAssertEqual(try url("https://h.test", "/s?x=1#frag"), "https://h.test/s?x=1%23frag")
    }

    func testEscapesParameterKeysAndValuesFully() throws {
        let result = try url("https://h.test", "/p", [("a b", "1+1=2&c"), ("ü", "#?/")])
        XCTAssertEqual(result, "https://h.test/p?a%20b=1%2B1%3D2%26c&%C3%BC=%23%3F%2F")
    }

    func testEscapedPathSegmentEscapesSeparators() throws {
        let segment = HTTPClient.escapedPathSegment("a/b?c#d%e f")
        XCTAssertEqual(segment, "a%2Fb%3Fc%23d%25e%20f")
        XCTAssertEqual(try url("https://h.test", "/files/" + segment), "https://h.test/files/a%2Fb%3Fc%23d%25e%20f")
    }

    func testRejectsBaseURLsThatAreNotHTTP() throws {
        for text in ["ftp://h.test", "file:///tmp/x", "mailto:a@b.c"] {
            let base = try XCTUnwrap(URL(string: text))
            XCTAssertThrowsError(try URLBuilder.url(base: base, path: "/x", parameters: [])) { error in
                XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest, text)
            }
        }
    }

    func testHostStrings() throws {
        XCTAssertEqual(try URLBuilder.baseURL(host: "api.example.com").absoluteString, "https://api.example.com")
        XCTAssertEqual(try URLBuilder.baseURL(host: " http://127.0.0.1:8080/v1 ").absoluteString, "http://127.0.0.1:8080/v1")
        for bad in ["", "   ", "api example.com", "ftp://h.test", "https://", "a\r\nb", "http://"] {
            XCTAssertThrowsError(try URLBuilder.baseURL(host: bad), bad) { error in
                XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest, bad)
            }
        }
    }

    func testClientFromAnInvalidHostFailsEachRequestWithInvalidRequest() {
        let stub = StubTransport()
        let client = HTTPClient(host: "not a host", transport: stub)
        XCTAssertNil(client.baseURL)
        let done = expectation(description: "completion")
        client.requestObject(path: "/x") { (result: Result<JSONValue, HTTPClientError>) in
            if case .failure(let error) = result {
                XCTAssertEqual(error.code, .invalidRequest)
            } else {
                XCTFail("expected a failure")
            }
            done.fulfill()
        }
        wait(for: [done], timeout: 2)
        XCTAssertTrue(stub.sentRequests.isEmpty)
    }
}
