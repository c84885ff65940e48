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

    func testTheBaseQueryThePathQueryAndParametersJoinInThatOrder() throws {
        XCTAssertEqual(try url("https://h.test/v1?key=k", "/items?sort=name", [("page", "2")]),
                       "https://h.test/v1/items?key=k&sort=name&page=2")
        XCTAssertEqual(try url("https://h.test/v1?key=k", "/items"), "https://h.test/v1/items?key=k")
        XCTAssertEqual(try url("https://h.test/v1?key=k", "", [("a", "1")]), "https://h.test/v1?key=k&a=1")
    }

    func testAPathOfSlashesOnlyKeepsOneTrailingSlash() throws {
        XCTAssertEqual(try url("https://h.test/v1", "///"), "https://h.test/v1/")
        XCTAssertEqual(try url("https://h.test", "/"), "https://h.test/")
        XCTAssertEqual(try url("https://h.test/v1", "?q=1"), "https://h.test/v1?q=1")
    }

    /// The encoders against a plain byte-by-byte one written from RFC 3986, on random strings
    /// rich in `%`, hex digits, delimiters and multi-byte characters.
    func testPercentEncodingMatchesAByteByByteReference() {
        func reference(_ text: String, keepingEscapes: Bool, allowed: (UInt8) -> Bool) -> String {
            let bytes = Array(text.utf8)
            var out = ""
            var index = 0
            func hex(_ byte: UInt8) -> Bool {
                (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
            }
            while index < bytes.count {
                if keepingEscapes, bytes[index] == 37, index + 2 < bytes.count, hex(bytes[index + 1]), hex(bytes[index + 2]) {
                    out += String(decoding: bytes[index...index + 2], as: UTF8.self)
                    index += 3
                } else if allowed(bytes[index]) {
                    out += String(UnicodeScalar(bytes[index]))
                    index += 1
                } else {
                    out += String(format: "%%%02X", bytes[index])
                    index += 1
                }
            }
            return out
        }
        let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
        let subDelims = Set("!$&'()*+,;=".utf8)
        let pchar: (UInt8) -> Bool = { unreserved.contains($0) || subDelims.contains($0) || $0 == 58 || $0 == 64 }
        let alphabet = Array("%%%2eAaF0f9g/?#&=+ :@[]!~-_.\r\n\u{0}\u{7F}üé日😀%2F%zz".map { String($0) })
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...12, using: &generator)
            let text = (0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "" }.joined()
            XCTAssertEqual(PercentEncoding.encodePath(text), reference(text, keepingEscapes: true) { pchar($0) || $0 == 47 }, text.debugDescription)
            XCTAssertEqual(PercentEncoding.encodeQuery(text), reference(text, keepingEscapes: true) { pchar($0) || $0 == 47 || $0 == 63 }, text.debugDescription)
            XCTAssertEqual(PercentEncoding.encodeQueryComponent(text), reference(text, keepingEscapes: false) { unreserved.contains($0) }, text.debugDescription)
            XCTAssertEqual(
                PercentEncoding.encodePathSegment(text),
                reference(text, keepingEscapes: false) { unreserved.contains($0) || (subDelims.contains($0) && $0 != 43) },
                text.debugDescription
            )
        }
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

    /// A port out of 1...65535 is refused when the client is made (it used to fail later, as
    /// NSURLErrorDomain -1000).
    func testAPortOutOfRangeIsRefusedAtOnce() throws {
        for bad in ["127.0.0.1:70000", "http://127.0.0.1:65536", "http://h.test:0"] {
            XCTAssertThrowsError(try URLBuilder.baseURL(host: bad), bad) { error in
                XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest, bad)
            }
            XCTAssertNil(HTTPClient(host: bad).baseURL, bad)
        }
        XCTAssertEqual(try URLBuilder.baseURL(host: "127.0.0.1:65535").absoluteString, "https://127.0.0.1:65535")
    }

    /// A full URL given as a path: of the base's origin it is taken as it is (a `next` link);
    /// of another origin it is refused, never appended (a 404) nor followed with the client's
    /// credentials.
    func testThePlainPathsShortcutWritesWhatTheGeneralAssemblyWrites() {
        let origins = ["https://h.test", "http://127.0.0.1:8080"]
        let basePaths = ["", "/v1", "/v1/", "/a/b"]
        let plain = ["", "/", "//", "a", "/a", "a/", "//a//b/", "/users/42", "/x:y@z/!$&'()*+,;=-._~", "/ÿ"]
        for origin in origins {
            for basePath in basePaths {
                for path in plain {
                    let general = URLBuilder.urlText(
                        origin: origin, basePath: basePath, pathPart: path, baseQuery: nil, pathQuery: nil, parameters: []
                    )
                    let shortcut = URLBuilder.plainURLText(origin: origin, basePath: basePath, pathPart: path)
                    if path.utf8.allSatisfy(PercentEncoding.isPlainPathByte) {
                        XCTAssertEqual(shortcut, general, "\(origin) \(basePath) \(path)")
                    } else {
                        XCTAssertNil(shortcut, "\(path) needs escaping: the general assembly writes it")
                    }
                }
            }
        }
        for escaped in ["/a b", "/a%20b", "/100%", "/tag#1", "/q?x", "/\u{7F}"] {
            XCTAssertNil(URLBuilder.plainURLText(origin: "https://h.test", basePath: "", pathPart: escaped), escaped)
        }
    }

    func testAFullURLIsRecognisedByItsSchemeInAnyCase() {
        for full in ["http://h.test/x", "https://h.test", "HTTPS://h.test", "HtTp://h"] {
            XCTAssertTrue(URLBuilder.startsWithHTTPScheme(full), full)
        }
        for path in ["/http://h", "", "h", "http", "http:/x", "https:", "httpx://h", "ftp://h", "http//h", "https:/", "httq://h", "\u{0148}ttp://h"] {
            XCTAssertFalse(URLBuilder.startsWithHTTPScheme(path), path)
        }
    }

    func testAFullURLAsAPathIsTakenForTheSameOriginAndRefusedForAnother() throws {
        XCTAssertEqual(try url("https://h.test/v1", "https://h.test/v1/users?page=2", [("per", "10")]), "https://h.test/v1/users?page=2&per=10")
        XCTAssertEqual(try url("https://h.test/v1", "HTTPS://H.TEST:443/other"), "https://h.test/other")
        XCTAssertEqual(try url("http://127.0.0.1:8080/api", "http://127.0.0.1:8080"), "http://127.0.0.1:8080/")
        for other in ["https://evil.test/v1/users", "http://h.test/v1/users", "https://h.test:8443/x", "https://u:p@h.test/x"] {
            XCTAssertThrowsError(try url("https://h.test/v1", other), other) { error in
                XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest, other)
                XCTAssertTrue((error as? HTTPClientError)?.description.contains("Request.baseURL") ?? false)
            }
        }
        XCTAssertThrowsError(try url("https://h.test", "https://h.test/a/../../etc")) { error in
            XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest)
        }
        XCTAssertThrowsError(try url("https://h.test", "https://evil.test/x?access_token=s3cret")) { error in
            XCTAssertFalse((error as? HTTPClientError)?.description.contains("s3cret") ?? true)
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
