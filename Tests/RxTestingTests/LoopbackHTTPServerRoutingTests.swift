import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@_spi(RxNetworkKitInternals) import RxCore
import RxTesting
import XCTest

final class LoopbackHTTPServerRoutingTests: XCTestCase {
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

    func testRoutesMatchMethodAndPathIgnoringTheQuery() async {
        // given
        server.route(.get, "/users/42") { _ in .json(#"{"id":42}"#) }
        server.route(.post, "/users/42", .status(201))

        // when
        let get = await TestHTTP.get(server.url("/users/42?expand=true"), session: session)
        let post = await TestHTTP.send("POST", server.url("/users/42"), body: Data("{}".utf8), session: session)
        let put = await TestHTTP.send("PUT", server.url("/users/42"), body: Data("{}".utf8), session: session)
        let other = await TestHTTP.get(server.url("/users/43"), session: session)

        // then
        XCTAssertEqual(get.status, 200)
        XCTAssertEqual(get.text, #"{"id":42}"#)
        XCTAssertEqual(get.header("Content-Type"), "application/json")
        XCTAssertEqual(post.status, 201)
        XCTAssertEqual(put.status, 404, "no PUT route")
        XCTAssertEqual(other.status, 404)
    }

    func testAnyMethodMatchesEveryMethodAndASpecificRouteWins() async {
        // given
        server.route(.any, "/echo") { request in .text(request.method.rawValue) }
        server.route(.delete, "/echo", .status(204))

        // when
        let get = await TestHTTP.get(server.url("/echo"), session: session)
        let patch = await TestHTTP.send("PATCH", server.url("/echo"), body: Data("x".utf8), session: session)
        let delete = await TestHTTP.send("DELETE", server.url("/echo"), session: session)

        // then
        XCTAssertEqual(get.text, "GET")
        XCTAssertEqual(patch.text, "PATCH")
        XCTAssertEqual(delete.status, 204)
    }

    func testUnknownRoutesGet404AndTheFallbackCanBeReplaced() async {
        // given
        let before = await TestHTTP.get(server.url("/nowhere"), session: session)

        // when
        server.setFallback { request in .text("no route for \(request.path)", status: 418) }
        let after = await TestHTTP.get(server.url("/nowhere"), session: session)

        // then
        XCTAssertEqual(before.status, 404)
        XCTAssertEqual(after.status, 418)
        XCTAssertEqual(after.text, "no route for /nowhere")
        XCTAssertEqual(server.requests.count, 2, "fallback requests are logged too")
    }

    func testRoutesCanBeReplacedAndRemovedWhileRunning() async {
        // given
        server.route(.get, "/version", .text("1"))
        let first = await TestHTTP.get(server.url("/version"), session: session)

        // when
        server.route(.get, "/version", .text("2"))
        let second = await TestHTTP.get(server.url("/version"), session: session)
        server.removeRoute(.get, "/version")
        let third = await TestHTTP.get(server.url("/version"), session: session)
        server.route(.get, "/a", .ok)
        server.removeAllRoutes()
        let fourth = await TestHTTP.get(server.url("/a"), session: session)

        // then
        XCTAssertEqual([first.text, second.text], ["1", "2"])
        XCTAssertEqual(third.status, 404)
        XCTAssertEqual(fourth.status, 404)
    }

    func testAPathEndingInStarMatchesByLongestPrefixAfterExactPaths() async {
        // given
        server.route(.get, "/files/*", .text("files"))
        server.route(.get, "/files/images/*", .text("images"))
        server.route(.get, "/files/readme", .text("readme"))

        // when
        let nested = await TestHTTP.get(server.url("/files/a/b.txt"), session: session)
        let image = await TestHTTP.get(server.url("/files/images/cat.png"), session: session)
        let exact = await TestHTTP.get(server.url("/files/readme"), session: session)
        let outside = await TestHTTP.get(server.url("/filesystem"), session: session)

        // then
        XCTAssertEqual([nested.text, image.text, exact.text], ["files", "images", "readme"])
        XCTAssertEqual(outside.status, 404)
    }

    func testPercentEncodedPathsMatchTheirDecodedRoute() async {
        // given
        server.route(.get, "/search/swift rx", .text("found"))

        // when
        let outcome = await TestHTTP.get(server.url("/search/swift%20rx"), session: session)

        // then
        XCTAssertEqual(outcome.text, "found")
        XCTAssertEqual(server.requests.first?.path, "/search/swift%20rx")
        XCTAssertEqual(server.requests.first?.decodedPath, "/search/swift rx")
    }

    func testASequenceAnswersSuccessiveHitsAndRepeatsItsLastResponse() async {
        // given: fail twice, then succeed
        server.route(.get, "/flaky", responses: [.status(503), .status(503), .text("ok")])

        // when
        var statuses: [Int?] = []
        for _ in 0..<4 {
            statuses.append(await TestHTTP.get(server.url("/flaky"), session: session).status)
        }
        server.route(.get, "/flaky", responses: [.status(500), .ok])
        let restarted = await TestHTTP.get(server.url("/flaky"), session: session)

        // then
        XCTAssertEqual(statuses, [503, 503, 200, 200])
        XCTAssertEqual(restarted.status, 500, "setting the route again starts the sequence over")
    }

    func testConcurrentHitsOfASequenceEachTakeADifferentResponse() {
        // given
        let responses = (0..<32).map { LoopbackHTTPResponse.text("\($0)") }
        server.route(.get, "/ticket", responses: responses)
        let port = server.port

        // when
        let bodies = LockedState.make([String]())
        DispatchQueue.concurrentPerform(iterations: 32) { _ in
            guard let client = RawHTTPClient(port: port) else { return }
            client.send("GET /ticket HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let text = client.readToEnd()
            let body = text.components(separatedBy: "\r\n\r\n").last ?? ""
            bodies.withLock { $0.append(body) }
        }

        // then
        XCTAssertEqual(Set(bodies.withLock { $0 }), Set((0..<32).map { "\($0)" }))
    }

    func testAHeadRequestUsesTheGetRouteWithoutABody() async {
        // given
        server.route(.get, "/doc", .text("twelve bytes"))

        // when
        let outcome = await TestHTTP.send("HEAD", server.url("/doc"), session: session)

        // then
        XCTAssertEqual(outcome.status, 200)
        XCTAssertEqual(outcome.header("Content-Length"), "12")
        XCTAssertTrue(outcome.body.isEmpty)
        XCTAssertEqual(server.requests.first?.method, .head)
    }

    func testAHandlerThatThrowsGets500() async {
        // given
        struct Broken: Error {}
        server.route(.get, "/broken") { _ in throw Broken() }

        // when
        let outcome = await TestHTTP.get(server.url("/broken"), session: session)

        // then
        XCTAssertEqual(outcome.status, 500)
        XCTAssertTrue(outcome.text.contains("Broken"), outcome.text)
    }

    func testEncodableJSONHelper() async throws {
        // given
        struct User: Codable, Equatable { var id: Int; var name: String }
        server.route(.get, "/user", try .json(encoding: User(id: 7, name: "Ada"), status: 201))

        // when
        let outcome = await TestHTTP.get(server.url("/user"), session: session)

        // then
        XCTAssertEqual(outcome.status, 201)
        XCTAssertEqual(try JSONDecoder().decode(User.self, from: outcome.body), User(id: 7, name: "Ada"))
    }
}
