import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// A daemon's callers may hold every thread of Dispatch's global pools, each blocked until its
/// answer comes. The client's clock, its default transport and the library's default timers
/// (shutdown, streams, WebSockets, OAuth, fault injection, outbox metrics) run on serial queues of
/// their own, so answers, retry waits and time-outs still come.
final class HeldPoolTests: LoopbackClientTestCase {
    func testAnAnswerComesThroughTheRxEdgeWhileTheGlobalPoolsAreHeld() throws {
        server.route(.get, "/ok", .text("ok"))
        let client = makeClient()
        let releasePools = holdGlobalPools()
        defer { releasePools() }
        let box = ResultBox<String>()
        let done = expectation(description: "answer")
        let subscription = client.rx.request(Text(path: "/ok")).subscribe(
            onSuccess: { box.set(.success($0)); done.fulfill() },
            onFailure: { box.set(.failure($0 as? HTTPClientError ?? HTTPClientError(.transport))); done.fulfill() }
        )
        defer { subscription.dispose() }
        wait(for: [done], timeout: 2)
        XCTAssertEqual(try box.value?.get(), "ok")
    }

    func testARetryWaitEndsWhileTheGlobalPoolsAreHeld() throws {
        server.route(.get, "/flaky", responses: [.text("busy", status: 503), .text("ok")])
        let client = HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 2, delay: .constant(time: 0.05)))
        )
        let releasePools = holdGlobalPools()
        defer { releasePools() }
        let box = ResultBox<String>()
        let done = expectation(description: "answer")
        client.request(Text(path: "/flaky")) { result in
            box.set(result)
            done.fulfill()
        }
        wait(for: [done], timeout: 2)
        XCTAssertEqual(try box.value?.get(), "ok")
        XCTAssertEqual(server.requests.filter { $0.path == "/flaky" }.count, 2, "the retry was sent")
    }

    func testAShutdownsGracePeriodEndsWhileTheGlobalPoolsAreHeld() throws {
        server.route(.get, "/slow", .stream([.pause(2), .text("late")]))
        let client = makeClient()
        let answered = expectation(description: "the request ends")
        client.request(Text(path: "/slow")) { _ in answered.fulfill() }
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.openConnectionCount == 1 }, "the request is in flight")
        let releasePools = holdGlobalPools()
        defer { releasePools() }
        let shutDown = expectation(description: "shut down")
        let started = Date()
        let subscription = client.shutdown(gracePeriod: 0.1).subscribe(onCompleted: { shutDown.fulfill() })
        defer { subscription.dispose() }
        wait(for: [shutDown, answered], timeout: 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1, "the grace period's timer fired")
    }
}

private struct Text: Request {
    typealias Response = String
    let path: String
}
