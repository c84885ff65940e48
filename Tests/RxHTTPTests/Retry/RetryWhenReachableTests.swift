import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// The end-to-end case of issue 4: a request fails while the server is down, with a 30 s retry
/// delay; the server comes back after 1 s; the client's reachability notices within one probe
/// interval and the request succeeds then, not 30 s later.
final class RetryWhenReachableTests: RxTestCase {
    func testARequestMadeWhileTheServerIsDownSucceedsWithinAProbeIntervalOfItsReturn() throws {
        let server = LoopbackHTTPServer()
        try server.start()
        let port = server.port
        server.route(.get, "/feed", .json(#"{"id":7,"name":"feed"}"#))
        server.stop()

        let probeInterval: TimeInterval = 0.2
        let client = HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(
                timeout: 2,
                retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 30)),
                reachabilityProbeInterval: probeInterval,
                reachabilityTimeout: 0.5
            )
        )
        let restartedAt = LockedDate()
        let succeededAt = LockedDate()
        let done = expectation(description: "success")
        let handle = client.requestObject(path: "/feed") { (result: Result<FeedItem, HTTPClientError>) in
            if case .success = result { succeededAt.set(Date()) }
            done.fulfill()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
            do {
                try server.start()
                restartedAt.set(Date())
            } catch {
                XCTFail("restart on port \(port) failed: \(error)")
            }
        }
        wait(for: [done], timeout: 10)
        handle.cancel()
        server.stop()

        let restart = try XCTUnwrap(restartedAt.value)
        let success = try XCTUnwrap(succeededAt.value, "the request failed instead of waiting for the server")
        let latency = success.timeIntervalSince(restart)
        XCTAssertEqual(server.port, port)
        XCTAssertLessThan(latency, probeInterval + 0.5, "recovered \(latency) s after the restart")
        print("retry-when-reachable: recovered \(String(format: "%.3f", latency)) s after the server came back")
    }
}

private struct FeedItem: Decodable {
    let id: Int
}

// @unchecked Sendable: `date` is only touched under `lock`.
private final class LockedDate: @unchecked Sendable {
    private let lock = NSLock()
    private var date: Date?

    func set(_ value: Date) { lock.withLock { date = value } }
    var value: Date? { lock.withLock { date } }
}
