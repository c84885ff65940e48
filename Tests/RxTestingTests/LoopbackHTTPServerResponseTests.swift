import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RxTesting
import XCTest

final class LoopbackHTTPServerResponseTests: XCTestCase {
    private var server = LoopbackHTTPServer()
    private var session = TestHTTP.makeSession()

    override func setUpWithError() throws {
        server = LoopbackHTTPServer()
        session = TestHTTP.makeSession()
        try server.start()
    }

    override func tearDown() {
        server.stop()
        session.invalidateAndCancel()
        super.tearDown()
    }

    func testStatusHeadersAndBodyAreSentAsScripted() async {
        // given
        server.route(
            .get, "/custom",
            LoopbackHTTPResponse.text("teapot", status: 418).withHeader("X-Trace", "abc").withHeader("x-trace", "def")
        )

        // when
        let outcome = await TestHTTP.get(server.url("/custom"), session: session)

        // then
        XCTAssertEqual(outcome.status, 418)
        XCTAssertEqual(outcome.text, "teapot")
        XCTAssertEqual(outcome.header("X-Trace"), "def", "withHeader replaces fields of the same name")
        XCTAssertEqual(outcome.header("Content-Type"), "text/plain; charset=utf-8")
        XCTAssertEqual(outcome.header("Content-Length"), "6")
    }

    func testTheStatusLineCarriesTheStandardOrCustomReasonPhrase() throws {
        // given
        server.route(.get, "/a", .status(503))
        server.route(.get, "/b", LoopbackHTTPResponse.ok.withStatus(299, reason: "Fine Enough"))
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = client.readResponse()
        client.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
        let second = client.readResponse()

        // then
        XCTAssertTrue(first.hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"), first)
        XCTAssertTrue(second.hasPrefix("HTTP/1.1 299 Fine Enough\r\n"), second)
    }

    func testADelayedResponseArrivesAfterItsDelay() async {
        // given
        server.route(.get, "/slow", LoopbackHTTPResponse.text("done").delayed(by: 0.2))

        // when
        let started = Date()
        let outcome = await TestHTTP.get(server.url("/slow"), session: session)

        // then
        XCTAssertEqual(outcome.text, "done")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.19)
    }

    func testAChunkedBodyIsFramedInChunksWithDelaysBetweenThem() async throws {
        // given
        let response = LoopbackHTTPResponse.text("hello world").chunked(chunkSize: 4, delayBetweenChunks: 0.03)
        server.route(.get, "/chunked", response)
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        let started = Date()
        client.send("GET /chunked HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let raw = client.readToEnd()
        let elapsed = Date().timeIntervalSince(started)
        let outcome = await TestHTTP.get(server.url("/chunked"), session: session)

        // then
        XCTAssertTrue(raw.contains("Transfer-Encoding: chunked\r\n"), raw)
        XCTAssertFalse(raw.contains("Content-Length"), raw)
        XCTAssertTrue(raw.hasSuffix("\r\n\r\n4\r\nhell\r\n4\r\no wo\r\n3\r\nrld\r\n0\r\n\r\n"), raw)
        XCTAssertGreaterThanOrEqual(elapsed, 0.08, "three pauses of 30 ms")
        XCTAssertEqual(outcome.text, "hello world")
    }

    func testATrickledBodyIsWrittenByteByByte() async {
        // given
        server.route(.get, "/trickle", LoopbackHTTPResponse.text("abcde").trickled(delayPerByte: 0.02))

        // when
        let started = Date()
        let outcome = await TestHTTP.get(server.url("/trickle"), session: session)

        // then
        XCTAssertEqual(outcome.text, "abcde")
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 0.079)
    }

    func testClosingMidBodyGivesTheClientAnError() async throws {
        // given
        let body = String(repeating: "x", count: 1000)
        server.route(.get, "/cut", LoopbackHTTPResponse.text(body).closingConnection(afterBodyBytes: 100))
        server.route(.get, "/cut-chunked", LoopbackHTTPResponse.text(body).chunked(chunkSize: 64).closingConnection(afterBodyBytes: 100))
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("GET /cut HTTP/1.1\r\nHost: x\r\n\r\n")
        let raw = client.readToEnd()
        let plain = await TestHTTP.get(server.url("/cut"), session: session)
        let chunked = await TestHTTP.get(server.url("/cut-chunked"), session: session)

        // then
        XCTAssertTrue(raw.contains("Content-Length: 1000\r\n"), raw)
        XCTAssertEqual(raw.components(separatedBy: "\r\n\r\n").last?.count, 100)
        XCTAssertNotNil(plain.error, "status \(String(describing: plain.status)), \(plain.body.count) bytes")
        XCTAssertNotNil(chunked.error, "status \(String(describing: chunked.status)), \(chunked.body.count) bytes")
    }

    func testDroppingTheConnectionSendsNoByte() async throws {
        // given
        server.route(.get, "/drop", .dropConnection)
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("GET /drop HTTP/1.1\r\nHost: x\r\n\r\n")
        let raw = client.readToEnd()
        let outcome = await TestHTTP.get(server.url("/drop"), session: session)

        // then
        XCTAssertEqual(raw, "")
        XCTAssertNil(outcome.status)
        XCTAssertNotNil(outcome.error)
    }

    func testNoContentAndNotModifiedCarryNoBody() throws {
        // given
        server.route(.get, "/204", LoopbackHTTPResponse(status: 204, body: Data("ignored".utf8)))
        server.route(.get, "/304", LoopbackHTTPResponse.text("ignored").withStatus(304))
        server.route(.get, "/after", .text("next"))
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when: three requests on one connection, so a stray body would corrupt the next response
        client.send("GET /204 HTTP/1.1\r\nHost: x\r\n\r\nGET /304 HTTP/1.1\r\nHost: x\r\n\r\n")
        client.send("GET /after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let raw = client.readToEnd()

        // then
        let responses = raw.components(separatedBy: "HTTP/1.1 ").dropFirst()
        XCTAssertEqual(responses.count, 3, raw)
        XCTAssertTrue(raw.hasPrefix("HTTP/1.1 204 No Content\r\n"), raw)
        XCTAssertFalse(raw.contains("ignored"), raw)
        XCTAssertFalse(responses.first?.contains("Content-Length") ?? true, "a 204 has no Content-Length")
        XCTAssertTrue(raw.hasSuffix("\r\n\r\nnext"), raw)
    }

    func testAOneMegabyteResponseArrivesIntact() async {
        // given
        let body = Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        server.route(.get, "/big", .data(body))

        // when
        let outcome = await TestHTTP.get(server.url("/big"), session: session)

        // then
        XCTAssertEqual(outcome.status, 200)
        XCTAssertEqual(outcome.body.count, body.count)
        XCTAssertEqual(outcome.body, body)
    }

    func testARawResponseIsSentVerbatimAndClosesTheConnection() throws {
        // given
        server.route(.get, "/raw", .raw("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhi"))
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("GET /raw HTTP/1.1\r\nHost: x\r\n\r\n")

        // then
        XCTAssertEqual(client.readToEnd(), "HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhi")
    }

    func testAResponseWithConnectionCloseClosesAfterItIsSent() throws {
        // given
        server.route(.get, "/bye", LoopbackHTTPResponse.text("bye").withHeader("Connection", "close"))
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("GET /bye HTTP/1.1\r\nHost: x\r\n\r\n")

        // then
        XCTAssertTrue(client.readToEnd().hasSuffix("\r\n\r\nbye"))
        XCTAssertTrue(waitUntil { server.openConnectionCount == 0 })
    }
}
