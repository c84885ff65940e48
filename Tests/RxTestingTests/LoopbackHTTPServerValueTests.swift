import Foundation
import RxTesting
import XCTest

final class LoopbackHTTPServerValueTests: XCTestCase {
    func testHeadersLookUpCaseInsensitivelyAndKeepOrderAndDuplicates() {
        // given
        var headers: LoopbackHTTPHeaders = ["Accept": "a", "X-One": "1"]
        headers.add(name: "accept", value: "b")

        // when / then
        XCTAssertEqual(headers["ACCEPT"], "a")
        XCTAssertEqual(headers.values(for: "Accept"), ["a", "b"])
        XCTAssertTrue(headers.contains("x-one"))
        XCTAssertNil(headers["Missing"])

        headers["aCCept"] = "c"
        XCTAssertEqual(headers.map(\.name), ["Accept", "X-One"], "setting replaces every field of that name")
        XCTAssertEqual(headers["accept"], "c")

        headers["X-One"] = nil
        headers["New"] = "n"
        XCTAssertEqual(headers.map { "\($0.name)=\($0.value)" }, ["Accept=c", "New=n"])
    }

    func testARequestSplitsItsTargetIntoPathAndDecodedQuery() {
        // given / when
        let request = LoopbackHTTPRequest(method: .get, target: "/a%2Fb/c?x=%C3%A9&y&z=1=2")
        let bare = LoopbackHTTPRequest(method: .get, target: "/plain")
        let emptyQuery = LoopbackHTTPRequest(method: .get, target: "/q?")

        // then
        XCTAssertEqual(request.path, "/a%2Fb/c")
        XCTAssertEqual(request.decodedPath, "/a/b/c")
        XCTAssertEqual(request.query, "x=%C3%A9&y&z=1=2")
        XCTAssertEqual(request.queryItems, [
            URLQueryItem(name: "x", value: "é"), URLQueryItem(name: "y", value: nil), URLQueryItem(name: "z", value: "1=2"),
        ])
        XCTAssertNil(bare.query)
        XCTAssertEqual(bare.queryItems, [])
        XCTAssertEqual(emptyQuery.query, "")
        XCTAssertEqual(emptyQuery.path, "/q")
    }

    func testResponseModifiersComposeAndFactoriesSetContentType() {
        // given / when
        let response = LoopbackHTTPResponse.json(#"{"a":1}"#, status: 202)
            .withHeader("X-A", "1")
            .delayed(by: 0.5)
            .chunked(chunkSize: 0, delayBetweenChunks: 0.1)
            .closingConnection(afterBodyBytes: -3)

        // then
        XCTAssertEqual(response.status, 202)
        XCTAssertEqual(response.headers["content-type"], "application/json")
        XCTAssertEqual(response.headers["x-a"], "1")
        XCTAssertEqual(response.delay, 0.5)
        XCTAssertEqual(response.transfer, .chunked(chunkSize: 1, delayBetweenChunks: 0.1), "chunk size is at least 1")
        XCTAssertEqual(response.ending, .closeAfterBodyBytes(0), "a negative count means the head only")
        XCTAssertEqual(LoopbackHTTPResponse.dropConnection.ending, .closeBeforeResponse)
        XCTAssertEqual(LoopbackHTTPResponse.raw("x").transfer, .raw)
        XCTAssertEqual(LoopbackHTTPMethod("GET"), .get)
        XCTAssertNotEqual(LoopbackHTTPMethod("get"), .get, "methods are case-sensitive")
    }
}
