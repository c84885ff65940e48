import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// `HTTPClient.shutdownOnTermination`: a real signal sent to this process drains every client
/// given, in flight requests finish, and `drained` runs once they all have (SIGUSR1 and SIGUSR2
/// stand in for SIGTERM, which would end the test runner if anything went wrong).
final class TerminationTests: LoopbackClientTestCase {
    func testASignalDrainsEveryClientThenRunsDrained() {
        server.route(.get, "/slow", .text("done").delayed(by: 0.2))
        let first = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        let second = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        let lines = LockedBox<[String]>([])
        let drained = expectation(description: "drained")
        let installed = HTTPClient.shutdownOnTermination(
            [first, second], gracePeriod: 5, signals: [SIGUSR1, SIGKILL, 0, 999], exitCode: nil,
            log: { line in lines.mutate { $0.append(line) } }, then: { drained.fulfill() }
        )
        defer { installed.dispose() }
        let inFlight = ResultBox<String>()
        let subscription = first.rx.request(Text(path: "/slow")).subscribe(
            onSuccess: { inFlight.set(.success($0)) }, onFailure: { inFlight.set(.failure($0 as? HTTPClientError ?? HTTPClientError(.transport))) }
        )
        defer { subscription.dispose() }
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/slow").count == 1 })
        kill(getpid(), SIGUSR1)
        XCTAssertTrue(waitUntil(timeout: 2) { first.isShutdownStarted && second.isShutdownStarted })
        kill(getpid(), SIGUSR1)   // a second signal changes nothing
        wait(for: [drained], timeout: 5)
        XCTAssertEqual(success(inFlight.value), "done", "the request in flight finished before the drain ended")
        XCTAssertEqual(lines.value, ["signal \(SIGUSR1): shutting down 2 clients (grace period 5 s)", "shut down cleanly"])
        XCTAssertEqual(failure(result(of: second.rx.request(Text(path: "/slow"))))?.code, .shutdown)
    }

    func testADisposedInstallationHearsNothingAndANewOneHears() {
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        let other = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        let drained = LockedBox(false)
        let installed = HTTPClient.shutdownOnTermination([other], signals: [SIGUSR2], exitCode: nil)
        installed.dispose()
        // Listening again on a fresh installation: only that one hears the signal.
        let again = HTTPClient.shutdownOnTermination([client], signals: [SIGUSR2], exitCode: nil, then: { drained.mutate { $0 = true } })
        defer { again.dispose() }
        kill(getpid(), SIGUSR2)
        XCTAssertTrue(waitUntil(timeout: 2) { drained.value })
        XCTAssertFalse(other.isShutdownStarted, "the disposed installation heard nothing")
    }
}

private struct Text: Request {
    typealias Response = String
    let path: String
}
