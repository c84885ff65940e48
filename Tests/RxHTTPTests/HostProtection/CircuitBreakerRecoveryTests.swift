import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// An open circuit heals from evidence: when the client's reachability sees the host come back,
/// the breaker goes half-open at once instead of waiting out its break (real sockets).
final class CircuitBreakerRecoveryTests: LoopbackClientTestCase {
    func testAnOpenBreakerHalfOpensWhenTheHostIsReachableAgain() throws {
        server.route(.get, "/x", .text("back"))
        let protection = HostProtection(circuitBreaker: CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 2, window: 30, breakDuration: 600))
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 2, hostProtection: protection))
        server.stop()
        for _ in 0..<2 {
            XCTAssertEqual(failure(result(of: client.rx.request(RawText(path: "/x"))))?.phase, .notSent)
        }
        guard case .open = client.circuitState(for: server.baseURL) else { return XCTFail("\(client.circuitState(for: server.baseURL))") }
        XCTAssertEqual(failure(result(of: client.rx.request(RawText(path: "/x"))))?.code, .circuitOpen)
        let statuses = LockedBox([String]())
        let watch = client.reachability?.status.subscribe(onNext: { status in statuses.mutate { $0.append("\(status)") } })
        Thread.sleep(forTimeInterval: 0.1)
        try server.start()
        // The break is 600 s; reachability probes every 0.5 s while the host is down.
        XCTAssertTrue(waitUntil(timeout: 3) { client.circuitState(for: self.server.baseURL) == .halfOpen }, "\(statuses.value)")
        watch?.dispose()
        XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/x")))), "back")
        XCTAssertEqual(client.circuitState(for: server.baseURL), .closed)
        XCTAssertTrue(waitUntil(timeout: 2) { client.reachability?.isProbing == false }, "a closed breaker kept probing")
    }
}
