import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// With default settings a request waiting to retry is sent again soon after its server comes
/// back (reachability probes every 0.5 s while it waits), and an idle client probes nothing.
final class PromptRecoveryTests: LoopbackClientTestCase {
    func testAWaitingRequestRecoversSoonAfterTheServerReturns() throws {
        server.route(.get, "/feed", .text("back"))
        let told = LockedBox([RetryNotification<HTTPClientError>]())
        // Only the policy is set; reachability settings are the defaults.
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: RetryPolicy(
            maxAttempts: 5, delay: .constant(time: 30), onRetry: { notification in told.mutate { $0.append(notification) } }
        )))
        server.stop()
        let box = ResultBox<String>()
        let subscription = client.rx.request(RawText(path: "/feed")).subscribe(
            onSuccess: { box.set(.success($0)) }, onFailure: { box.set(.failure($0 as? HTTPClientError ?? HTTPClientError(.transport))) }
        )
        XCTAssertTrue(waitUntil(timeout: 2) { client.reachability?.isProbing == true })
        Thread.sleep(forTimeInterval: 0.2)
        try server.start()
        let back = Date()
        XCTAssertTrue(waitUntil(timeout: 3) { box.deliveries == 1 })
        let recovery = Date().timeIntervalSince(back)
        XCTAssertEqual(success(box.value), "back")
        XCTAssertLessThan(recovery, 2, "recovered \(recovery) s after the server came back")
        XCTAssertEqual(told.value.map(\.trigger), [.reachability])
        subscription.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { client.reachability?.isProbing == false }, "probing outlived the wait")
    }

    func testAnIdleClientProbesNothing() {
        server.route(.get, "/x", .text("x"))
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 3)))
        XCTAssertEqual(client.reachability?.isProbing, false)
        XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/x")))), "x")
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(client.reachability?.isProbing, false)
        XCTAssertEqual(server.acceptedConnectionCount, 1, "something besides the request connected")
    }

    func testDefaultProbeCadence() {
        let configuration = HTTPClient.Configuration()
        XCTAssertEqual(configuration.reachabilityRecoveryProbeInterval, 0.5)
        XCTAssertEqual(configuration.reachabilityProbeInterval, 5)
        XCTAssertEqual(HTTPClient(baseURL: server.baseURL).reachability?.unreachableProbeInterval, 0.5)
    }

    func testAWaitOnAnotherHostWatchesThatHost() throws {
        let other = LoopbackHTTPServer()
        try other.start()
        other.route(.get, "/x", .text("other"))
        let port = other.port
        other.stop()
        struct Elsewhere: Request {
            typealias Response = String
            let baseURL: URL?
            var path: String { "/x" }
        }
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 30))))
        let box = ResultBox<String>()
        let subscription = client.rx.request(Elsewhere(baseURL: other.url(""))).subscribe(
            onSuccess: { box.set(.success($0)) }, onFailure: { box.set(.failure($0 as? HTTPClientError ?? HTTPClientError(.transport))) }
        )
        Thread.sleep(forTimeInterval: 0.2)
        try other.start()
        XCTAssertEqual(other.port, port)
        XCTAssertTrue(waitUntil(timeout: 3) { box.deliveries == 1 })
        XCTAssertEqual(success(box.value), "other")
        XCTAssertEqual(client.reachability?.isProbing, false, "the base URL's host was probed for another host's wait")
        subscription.dispose()
        other.stop()
    }
}
