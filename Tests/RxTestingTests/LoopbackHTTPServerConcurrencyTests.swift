import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RxTesting
import XCTest

final class LoopbackHTTPServerConcurrencyTests: XCTestCase {
    private var server = LoopbackHTTPServer()

    override func setUpWithError() throws {
        server = LoopbackHTTPServer()
        try server.start()
    }

    override func tearDown() {
        server.stop()
        super.tearDown()
    }

    func testSixtyFourParallelURLSessionRequestsAllSucceed() async {
        // given
        server.route(.get, "/work") { request in
            LoopbackHTTPResponse.text(request.queryValue("n") ?? "?").delayed(by: 0.02)
        }
        let session = TestHTTP.makeSession(timeout: 10)
        defer { session.invalidateAndCancel() }
        let server = server

        // when
        let outcomes = await withTaskGroup(of: (Int, TestHTTP.Outcome).self) { group in
            for index in 0..<64 {
                let url = server.url("/work?n=\(index)")
                group.addTask { (index, await TestHTTP.get(url, session: session)) }
            }
            var outcomes: [Int: TestHTTP.Outcome] = [:]
            for await (index, outcome) in group { outcomes[index] = outcome }
            return outcomes
        }

        // then
        XCTAssertEqual(outcomes.count, 64)
        for (index, outcome) in outcomes {
            XCTAssertEqual(outcome.status, 200, "request \(index): \(String(describing: outcome.error))")
            XCTAssertEqual(outcome.text, "\(index)")
        }
        XCTAssertEqual(server.requests.count, 64)
    }

    func testSixtyFourConnectionsAreServedAtTheSameTime() throws {
        // given a route whose handler holds each request at a gate: only a server that serves all
        // 64 connections at once can have 64 handlers inside together
        let gate = DispatchSemaphore(value: 0)
        let inside = ConcurrentCounter()
        server.route(.get, "/held") { _ in
            inside.increment()
            gate.wait()
            return .text("ok")
        }
        defer { for _ in 0..<64 { gate.signal() } }

        // when
        let clients = try (0..<64).map { _ in try XCTUnwrap(RawHTTPClient(port: server.port)) }
        for client in clients { client.send("GET /held HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") }

        // then
        XCTAssertTrue(waitUntil(timeout: 10) { inside.value == 64 }, "\(inside.value) handlers running at once")
        XCTAssertEqual(server.openConnectionCount, 64)
        for _ in 0..<64 { gate.signal() }
        let responses = clients.map { $0.readToEnd(timeout: 5) }
        XCTAssertTrue(responses.allSatisfy { $0.hasPrefix("HTTP/1.1 200 OK") && $0.hasSuffix("ok") })
    }

    func testRoutesAndTheLogCanBeUsedFromManyThreadsWhileServing() {
        // given
        server.route(.get, "/r0", .text("0"))
        let server = server
        let port = server.port

        // when: half the iterations send requests, the other half reconfigure and read the server
        DispatchQueue.concurrentPerform(iterations: 200) { index in
            switch index % 4 {
            case 0:
                guard let client = RawHTTPClient(port: port) else { return }
                client.send("GET /r\(index % 8) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                _ = client.readToEnd()
            case 1:
                server.route(.get, "/r\(index % 8)", responses: [.text("\(index)"), .status(503)])
            case 2:
                _ = server.requests.count
                _ = server.openConnectionCount
            default:
                if index % 20 == 3 { server.resetRequests() }
                server.setFallback { _ in .status(404) }
                server.removeRoute(.get, "/r\((index + 1) % 8)")
            }
        }

        // then: the server is healthy and consistent
        server.resetRequests()
        server.route(.get, "/final", .text("done"))
        let client = RawHTTPClient(port: port)
        client?.send("GET /final HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        XCTAssertTrue(client?.readToEnd().hasSuffix("done") ?? false)
        XCTAssertEqual(server.requests.map(\.path), ["/final"])
    }
}

/// Counts from many threads.
// @unchecked Sendable: `count` is only touched under `lock`.
private final class ConcurrentCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
