import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RxTesting
import XCTest

final class LoopbackHTTPServerRequestTests: XCTestCase {
    private var server = LoopbackHTTPServer()
    private var session = TestHTTP.makeSession()

    override func setUpWithError() throws {
        server = LoopbackHTTPServer()
        session = TestHTTP.makeSession()
        server.route(.any, "/echo") { request in .data(request.body, contentType: "application/octet-stream") }
        try server.start()
    }

    override func tearDown() {
        server.stop()
        session.invalidateAndCancel()
        super.tearDown()
    }

    func testTheLogRecordsMethodPathQueryHeadersAndBodyInArrivalOrder() async throws {
        // given
        server.route(.any, "/items", .status(201))

        // when
        _ = await TestHTTP.get(server.url("/items?tag=a%20b&tag=c&flag&empty=&plus=1+2"), session: session)
        _ = await TestHTTP.send(
            "POST", server.url("/items"), body: Data(#"{"name":"x"}"#.utf8),
            headers: ["Content-Type": "application/json", "X-Request-ID": "r-2"], session: session
        )

        // then
        let log = server.requests
        XCTAssertEqual(log.map(\.method), [.get, .post])
        XCTAssertEqual(log.map(\.path), ["/items", "/items"])
        let get = try XCTUnwrap(log.first)
        XCTAssertEqual(get.target, "/items?tag=a%20b&tag=c&flag&empty=&plus=1+2")
        XCTAssertEqual(get.query, "tag=a%20b&tag=c&flag&empty=&plus=1+2")
        XCTAssertEqual(get.queryItems, [
            URLQueryItem(name: "tag", value: "a b"), URLQueryItem(name: "tag", value: "c"),
            URLQueryItem(name: "flag", value: nil), URLQueryItem(name: "empty", value: ""),
            URLQueryItem(name: "plus", value: "1+2"),
        ])
        XCTAssertEqual(get.queryValue("tag"), "a b")
        XCTAssertTrue(get.body.isEmpty)
        let post = try XCTUnwrap(log.last)
        XCTAssertEqual(post.header("x-request-id"), "r-2", "header lookup is case-insensitive")
        XCTAssertEqual(post.headers["CONTENT-TYPE"], "application/json")
        XCTAssertEqual(post.bodyString, #"{"name":"x"}"#)
        XCTAssertEqual(post.version, "HTTP/1.1")
        XCTAssertEqual(server.requests(to: "/items").count, 2)
    }

    func testWaitForRequestsAndReset() async {
        // given
        let url = server.url("/echo")
        let session = session
        Task.detached {
            try? await Task.sleep(nanoseconds: 50_000_000)
            _ = await TestHTTP.get(url, session: session)
        }

        // when
        let waited = server.waitForRequests(count: 1, timeout: 2)
        server.resetRequests()
        let timedOut = server.waitForRequests(count: 1, timeout: 0.05)

        // then
        XCTAssertEqual(waited.map(\.path), ["/echo"])
        XCTAssertEqual(timedOut.count, 0)
        XCTAssertTrue(server.requests.isEmpty)
    }

    func testAOneMegabyteUploadIsReceivedIntactAndEchoed() async {
        // given
        let body = Data((0..<1_048_576).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

        // when
        let outcome = await TestHTTP.send("PUT", server.url("/echo"), body: body, session: session)

        // then
        XCTAssertEqual(outcome.status, 200)
        XCTAssertEqual(outcome.body, body)
        XCTAssertEqual(server.requests.first?.body, body)
    }

    func testAChunkedRequestBodyIsDecoded() throws {
        // given
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when: chunks with an extension and a trailer, sent in pieces
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhel")
        Thread.sleep(forTimeInterval: 0.01)
        client.send("lo\r\nA\r\n, chunked!\r\n0\r\nX-Trailer: t\r\n\r\n")
        let response = client.readResponse()

        // then
        XCTAssertTrue(response.hasSuffix("\r\n\r\nhello, chunked!"), response)
        XCTAssertEqual(server.requests.first?.bodyString, "hello, chunked!")
    }

    func testKeepAliveServesSeveralRequestsOnOneConnectionIncludingPipelined() throws {
        // given
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none")
        let first = client.readResponse()
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\ntwoPOST /echo HTTP/1.1\r\nHost: x\r\n")
        client.send("Content-Length: 5\r\nConnection: close\r\n\r\nthree")
        let rest = client.readToEnd()

        // then
        XCTAssertTrue(first.hasSuffix("one"), first)
        XCTAssertTrue(rest.contains("\r\n\r\ntwoHTTP/1.1 200"), rest)
        XCTAssertTrue(rest.hasSuffix("Connection: close\r\n\r\nthree"), rest)
        XCTAssertEqual(Set(server.requests.map(\.connectionID)).count, 1)
        XCTAssertEqual(server.acceptedConnectionCount, 1)
    }

    func testURLSessionReusesAKeepAliveConnection() async {
        // when
        for _ in 0..<5 { _ = await TestHTTP.get(server.url("/echo"), session: session) }

        // then
        XCTAssertEqual(server.requests.count, 5)
        XCTAssertEqual(server.acceptedConnectionCount, 1)
    }

    func testHTTP10ClosesUnlessKeepAliveIsAsked() throws {
        // given
        let closing = try XCTUnwrap(RawHTTPClient(port: server.port))
        let keeping = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        closing.send("GET /echo HTTP/1.0\r\n\r\n")
        keeping.send("GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")

        // then
        XCTAssertTrue(closing.isClosedByServer(within: 1))
        let kept = keeping.readResponse()
        XCTAssertTrue(kept.contains("Connection: keep-alive\r\n"), kept)
        XCTAssertFalse(keeping.isClosedByServer(within: 0.05))
    }

    func testExpectContinueGetsAnInterimResponseBeforeTheBody() throws {
        // given
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
        let interim = client.read { $0.hasSuffix("\r\n\r\n") }
        client.send("data")
        let final = client.readResponse()

        // then
        XCTAssertEqual(interim, "HTTP/1.1 100 Continue\r\n\r\n")
        XCTAssertTrue(final.hasPrefix("HTTP/1.1 200 OK"), final)
        XCTAssertTrue(final.hasSuffix("data"), final)
    }

    func testMalformedRequestsGetAnErrorStatusAndTheServerKeepsServing() async throws {
        // given
        let cases: [(request: String, status: String)] = [
            ("GARBAGE\r\n\r\n", "400"),
            ("GET /x HTTP/1.1 extra\r\n\r\n", "400"),
            ("GET noslash HTTP/1.1\r\n\r\n", "400"),
            ("GET /x HTTP/2.0\r\n\r\n", "505"),
            ("GET /x FTP/1.1\r\n\r\n", "400"),
            ("G(T /x HTTP/1.1\r\n\r\n", "400"),
            ("GET /x HTTP/1.1\r\nNoColon\r\n\r\n", "400"),
            ("GET /x HTTP/1.1\r\nBad Name: v\r\n\r\n", "400"),
            ("GET /x HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", "400"),
            ("POST /x HTTP/1.1\r\nContent-Length: -1\r\n\r\n", "400"),
            ("POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", "400"),
            ("POST /x HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n", "413"),
            ("POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", "501"),
            ("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", "400"),
            ("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "400"),
            ("POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", "400"),
            ("GET /x HTTP/1.1\r\nX: " + String(repeating: "a", count: 70_000) + "\r\n\r\n", "431"),
            ("\u{00}\u{FF}\u{01}\r\n\r\n", "400"),
        ]

        for (request, status) in cases {
            // when
            let client = try XCTUnwrap(RawHTTPClient(port: server.port))
            client.send(request)
            let response = client.readToEnd()

            // then
            XCTAssertTrue(response.hasPrefix("HTTP/1.1 \(status) "), "\(request.prefix(60).debugDescription) -> \(response.prefix(60))")
            XCTAssertTrue(response.contains("Connection: close\r\n"))
        }
        XCTAssertTrue(server.requests.isEmpty, "malformed requests are not logged")
        let healthy = await TestHTTP.get(server.url("/echo"), session: session)
        XCTAssertEqual(healthy.status, 200)
    }

    func testAClientDisconnectingMidRequestDoesNotDisturbTheServer() async throws {
        // given
        let acceptedBefore = server.acceptedConnectionCount
        for partial in ["GET /echo HT", "POST /echo HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc",
                        "POST /echo HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"] {
            let client = try XCTUnwrap(RawHTTPClient(port: server.port))
            client.send(partial)
            // when: the client goes away (deinit closes its socket)
        }

        // then: all three were accepted, and closed (an open count of 0 alone may be before the accepts)
        XCTAssertTrue(waitUntil { server.acceptedConnectionCount == acceptedBefore + 3 && server.openConnectionCount == 0 })
        XCTAssertTrue(server.requests.isEmpty)
        let healthy = await TestHTTP.get(server.url("/echo"), session: session)
        XCTAssertEqual(healthy.status, 200)
    }

    func testLeadingEmptyLinesAndBareLineFeedsAreTolerated() throws {
        // given
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("\r\nGET /echo?x=1 HTTP/1.1\nHost: x\nConnection: close\n\n")

        // then
        XCTAssertTrue(client.readToEnd().hasPrefix("HTTP/1.1 200 OK\r\n"))
        XCTAssertEqual(server.requests.first?.queryValue("x"), "1")
    }

    func testTheLogKeepsOnlyTheMostRecentRequestsBeyondItsLimit() throws {
        // given
        let server = LoopbackHTTPServer(requestLogLimit: 3)
        try server.start()
        defer { server.stop() }
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        for index in 0..<10 {
            client.send("GET /r\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = client.readResponse()
        }

        // then
        XCTAssertEqual(server.requests.map(\.path), ["/r7", "/r8", "/r9"])
    }
}
