import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RxTesting
import XCTest

final class LoopbackHTTPServerLifecycleTests: XCTestCase {
    func testStartBindsAnEphemeralPortOnLoopbackAndServesRequests() async throws {
        // given
        let server = LoopbackHTTPServer()
        XCTAssertFalse(server.isRunning)
        server.route(.get, "/ping", .text("pong"))
        let session = TestHTTP.makeSession()
        defer { session.invalidateAndCancel() }

        // when
        try server.start()
        defer { server.stop() }
        let outcome = await TestHTTP.get(server.url("/ping"), session: session)

        // then
        XCTAssertTrue(server.isRunning)
        XCTAssertNotEqual(server.port, 0)
        XCTAssertEqual(server.baseURL.absoluteString, "http://127.0.0.1:\(server.port)")
        XCTAssertEqual(server.url("users/1?x=a b").absoluteString, "http://127.0.0.1:\(server.port)/users/1?x=a%20b")
        XCTAssertEqual(outcome.status, 200)
        XCTAssertEqual(outcome.text, "pong")
    }

    func testStopRefusesNewConnectionsAndIsIdempotent() throws {
        // given
        let server = LoopbackHTTPServer()
        try server.start()
        let port = server.port
        XCTAssertNotNil(RawHTTPClient(port: port))

        // when
        server.stop()
        server.stop()

        // then
        XCTAssertFalse(server.isRunning)
        XCTAssertNil(RawHTTPClient(port: port), "the listener must be closed when stop() returns")
        XCTAssertEqual(server.port, port, "the port is kept for the next start")
    }

    func testStartAgainAfterStopReusesTheSamePortAndKeepsRoutes() async throws {
        // given
        let server = LoopbackHTTPServer()
        server.route(.get, "/ping", .text("pong"))
        try server.start()
        let port = server.port
        let client = try XCTUnwrap(RawHTTPClient(port: port))
        client.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(client.readResponse().hasSuffix("pong"))

        // when
        server.stop()
        try server.start()
        defer { server.stop() }
        let session = TestHTTP.makeSession()
        defer { session.invalidateAndCancel() }
        let outcome = await TestHTTP.get(server.url("/ping"), session: session)

        // then
        XCTAssertEqual(server.port, port)
        XCTAssertEqual(outcome.text, "pong")
        XCTAssertEqual(server.requests.count, 2, "the log survives a restart")
    }

    func testStartOnAPortInUseThrowsAddressInUse() throws {
        // given
        let first = LoopbackHTTPServer()
        try first.start()
        defer { first.stop() }
        let second = LoopbackHTTPServer(port: first.port)

        // when / then
        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual(error as? LoopbackHTTPServerError, .addressInUse(port: first.port))
        }
        XCTAssertFalse(second.isRunning)
        second.stop()
    }

    func testStartWhileRunningKeepsTheServerAsItIs() throws {
        // given
        let server = LoopbackHTTPServer()
        try server.start()
        defer { server.stop() }
        let port = server.port

        // when
        try server.start()

        // then
        XCTAssertEqual(server.port, port)
        XCTAssertNotNil(RawHTTPClient(port: port))
    }

    func testStopClosesIdleKeepAliveConnections() throws {
        // given a connection kept alive after one request
        let server = LoopbackHTTPServer()
        try server.start()
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))
        client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        XCTAssertTrue(client.readResponse().hasPrefix("HTTP/1.1 404"))
        XCTAssertEqual(server.openConnectionCount, 1)

        // when
        server.stop()

        // then
        XCTAssertTrue(client.isClosedByServer(within: 1))
        XCTAssertEqual(server.openConnectionCount, 0)
    }

    func testStopEndsADelayedResponseAtOnceAndTheClientSeesAnError() async throws {
        // given a request waiting for a 10 s delayed response
        let server = LoopbackHTTPServer()
        server.route(.get, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 10))
        try server.start()
        let session = TestHTTP.makeSession()
        defer { session.invalidateAndCancel() }
        let url = server.url("/slow")
        let pending = Task { await TestHTTP.get(url, session: session) }
        XCTAssertEqual(server.waitForRequests(count: 1, timeout: 2).count, 1)

        // when
        let stopStarted = Date()
        server.stop()

        // then
        XCTAssertLessThan(Date().timeIntervalSince(stopStarted), 1)
        let outcome = await pending.value
        XCTAssertNil(outcome.status)
        XCTAssertNotNil(outcome.error)
    }

    func testStopCalledFromARouteHandlerReturns() throws {
        // given
        let server = LoopbackHTTPServer()
        server.route(.post, "/shutdown") { [weak server] _ in
            server?.stop()
            return .ok
        }
        try server.start()
        let client = try XCTUnwrap(RawHTTPClient(port: server.port))

        // when
        client.send("POST /shutdown HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        _ = client.readToEnd(timeout: 2)

        // then: the handler's own connection is closed too; the listener closes once stop() returns
        XCTAssertFalse(server.isRunning)
        XCTAssertTrue(waitUntil { RawHTTPClient(port: server.port) == nil })
    }

    func testReleasingARunningServerStopsIt() throws {
        // given
        var server: LoopbackHTTPServer? = LoopbackHTTPServer()
        try server?.start()
        let port = try XCTUnwrap(server?.port)

        // when
        server = nil

        // then
        XCTAssertNil(RawHTTPClient(port: port))
    }

    func testFiveHundredConnectionsLeakNoFileDescriptors() throws {
        guard let before = openSocketCount() else { throw XCTSkip("needs /proc/self/fd") }
        // given
        let server = LoopbackHTTPServer()
        server.route(.get, "/ping", .text("pong"))
        try server.start()

        // when: 500 connections, closed in every way a connection can end
        for index in 0..<500 {
            guard let client = RawHTTPClient(port: server.port) else { return XCTFail("connection \(index) refused") }
            switch index % 5 {
            case 0:
                client.send("GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                XCTAssertTrue(client.readToEnd().hasSuffix("pong"))
            case 1:
                client.send("GET /ping HTTP/1.1\r\nHost: x\r\n\r\n")
                XCTAssertTrue(client.readResponse().hasSuffix("pong"))
            case 2:
                client.send("NONSENSE\r\n\r\n")
                XCTAssertTrue(client.readToEnd().hasPrefix("HTTP/1.1 400"))
            case 3:
                client.send("POST /ping HTTP/1.1\r\nContent-Length: 100\r\n\r\nonly part")
            default:
                break
            }
        }

        // then: every connection was accepted (the last ones may still sit in the listen backlog
        // when the loop ends: an open count of 0 alone is not the end) and closed
        XCTAssertTrue(
            waitUntil { server.acceptedConnectionCount == 500 && server.openConnectionCount == 0 },
            "\(server.acceptedConnectionCount) accepted, \(server.openConnectionCount) still open"
        )
        server.stop()
        XCTAssertEqual(server.acceptedConnectionCount, 500)
        XCTAssertTrue(
            waitUntil { (openSocketCount() ?? .max) <= before },
            "open sockets: \(before) before, \(openSocketCount() ?? -1) after"
        )
    }
}
