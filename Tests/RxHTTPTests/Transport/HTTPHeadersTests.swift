import Foundation
@_spi(TransportSupport) @testable import RxHTTP
import XCTest

/// `HTTPHeaders`: order kept, names without case, repeated fields kept, and the subscript's RFC
/// 9110 rule for combining a repeated field's lines.
final class HTTPHeadersTests: XCTestCase {
    func testRepeatedFieldsAreKeptInOrderAndNamesIgnoreCase() {
        var headers: HTTPHeaders = ["Set-Cookie": "a=1", "Content-Type": "text/plain", "set-cookie": "b=2"]
        headers.add(name: "SET-COOKIE", value: "c=3")
        XCTAssertEqual(headers.count, 4)
        XCTAssertEqual(headers.values(for: "Set-Cookie"), ["a=1", "b=2", "c=3"])
        XCTAssertEqual(headers.values(for: "x-absent"), [])
        XCTAssertEqual(headers.map(\.name), ["Set-Cookie", "Content-Type", "set-cookie", "SET-COOKIE"], "in order, as written")
        XCTAssertEqual(headers.names, ["Set-Cookie", "Content-Type"], "each name once, as first written")
        XCTAssertTrue(headers.contains("content-TYPE"))
        XCTAssertFalse(headers.contains("Content-Typ"))
        XCTAssertFalse(headers.isEmpty)
        XCTAssertTrue(HTTPHeaders().isEmpty)
    }

    func testTheSubscriptCombinesListFieldsOnlyAsRFC9110Allows() {
        let headers: HTTPHeaders = [
            "WWW-Authenticate": #"Basic realm="api""#, "Cache-Control": "max-age=60", "www-authenticate": "Bearer",
            "Set-Cookie": "a=1", "Set-Cookie": "b=2", "Content-Type": "text/plain", "Content-Type": "text/html",
            "X-Custom": "1", "X-Custom": "2", "Vary": "Accept",
        ]
        XCTAssertEqual(headers["www-authenticate"], #"Basic realm="api", Bearer"#, "a list field: every line, combined")
        XCTAssertEqual(headers["X-CUSTOM"], "1, 2", "an unknown field is taken as a list")
        XCTAssertEqual(headers["Set-Cookie"], "a=1", "Set-Cookie is never combined (RFC 9110 §5.3)")
        XCTAssertEqual(headers["content-type"], "text/plain", "a single-valued field: its first line")
        XCTAssertEqual(headers["Vary"], "Accept", "one line: itself")
        XCTAssertNil(headers["Location"])
    }

    func testSettingReplacesEveryLineAtTheFirstOnesPlaceAndNilRemoves() {
        var headers: HTTPHeaders = ["A": "1", "Link": "<a>", "B": "2", "link": "<b>"]
        headers["LINK"] = "<c>"
        XCTAssertEqual(Array(headers.map { "\($0.name)=\($0.value)" }), ["A=1", "LINK=<c>", "B=2"])
        headers["New"] = "n"
        XCTAssertEqual(headers.names.last, "New", "a new field goes last")
        headers["a"] = nil
        XCTAssertEqual(headers.names, ["LINK", "B", "New"])
        headers.remove("b")
        headers.remove("absent")
        XCTAssertEqual(headers.names, ["LINK", "New"])
        headers.replaceOrAdd(name: "new", value: "m")
        XCTAssertEqual(headers.values(for: "NEW"), ["m"])
    }

    func testADictionaryMakesSortedLinesAndCallSitesOfDictionariesCompile() {
        let dictionary = ["b": "2", "A": "1", "c": "3"]
        XCTAssertEqual(HTTPHeaders(dictionary).map(\.name), ["A", "b", "c"], "sorted by name: a stable order")
        let response = HTTPResponse(statusCode: 200, headers: dictionary)
        XCTAssertEqual(response.headers["B"], "2")
        XCTAssertEqual(response.value(forHTTPHeaderField: "a"), "1")
        let error = HTTPClientError(.unacceptableStatusCode, statusCode: 503, headers: dictionary)
        XCTAssertEqual(error.headers?["C"], "3")
        let literal = HTTPResponse(statusCode: 200, headers: ["X": "y"])
        XCTAssertEqual(literal.headers["x"], "y")
        var seen: [String] = []
        for (name, value) in literal.headers {
            seen.append("\(name): \(value)")
        }
        XCTAssertEqual(seen, ["X: y"])
    }

    func testEqualityIgnoresTheCaseOfNamesButNotOrderOrValues() {
        let a: HTTPHeaders = ["Content-Type": "a", "X": "1"]
        XCTAssertEqual(a, ["content-type": "a", "x": "1"])
        XCTAssertEqual(a.hashValue, (["CONTENT-TYPE": "a", "X": "1"] as HTTPHeaders).hashValue)
        XCTAssertNotEqual(a, ["X": "1", "Content-Type": "a"], "order is part of a message")
        XCTAssertNotEqual(a, ["Content-Type": "A", "X": "1"], "values compare exactly")
        XCTAssertNotEqual(a, ["Content-Type": "a"])
    }

    func testTheDescriptionRedactsSecretsAndNothingElse() {
        let headers: HTTPHeaders = [
            "Authorization": "Bearer s3cret", "Set-Cookie": "session=abc", "X-Api-Key": "k-123", "Content-Type": "text/plain",
        ]
        let text = headers.description
        XCTAssertFalse(text.contains("s3cret"), text)
        XCTAssertFalse(text.contains("session=abc"), text)
        XCTAssertFalse(text.contains("k-123"), text)
        XCTAssertTrue(text.contains("Content-Type: text/plain"), text)
        XCTAssertTrue(text.hasPrefix("[Authorization: "), "in order: \(text)")
    }

    func testTheFramingCheckSeesEveryContentLengthLineAndRateLimitsTheFirst() {
        let twoLengths: HTTPHeaders = ["Content-Length": "5", "content-length": "10"]
        XCTAssertThrowsError(try ResponseFraming.validate(headers: twoLengths, statusCode: 200, method: "GET", url: nil)) { error in
            XCTAssertEqual((error as? HTTPClientError)?.code, .invalidResponse, "two lines that disagree: the framing is broken")
        }
        let sameTwice: HTTPHeaders = ["Content-Length": "5", "Content-Length": "5"]
        XCTAssertEqual(try ResponseFraming.validate(headers: sameTwice, statusCode: 200, method: "GET", url: nil).contentLength, 5,
                       "the same length twice is one length (RFC 9112 §6.3)")
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        XCTAssertEqual(RateLimitHeaders.status(in: ["X-RateLimit-Remaining": "0", "x-ratelimit-remaining": "7", "X-RateLimit-Reset-After": "4"], now: now),
                       .init(remaining: 0, resetAfter: 4))
    }
}
