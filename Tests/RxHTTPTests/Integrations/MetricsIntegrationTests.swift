// Runs with the package trait `Metrics` only (`swift test --traits Metrics`).
#if Metrics
import Foundation
import Metrics
import MetricsTestKit
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// `client.recordMetrics(factory:)` over a real transport, read back with MetricsTestKit.
final class MetricsIntegrationTests: LoopbackClientTestCase {
    private var port: String { String(server.baseURL.port ?? 0) }

    private func target(_ method: String = "GET") -> [(String, String)] {
        [("http.request.method", method), ("server.address", "127.0.0.1"), ("server.port", port)]
    }

    func testEachAttemptIsTimedWithTheConventionsDimensionsAndRetriesAreCounted() throws {
        server.route(.get, "/items", responses: [.status(503), .json("[]")])
        let metrics = TestMetrics()
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 2, delay: .immediate)))
        let recording = client.recordMetrics(factory: metrics)
        defer { recording.dispose() }
        XCTAssertNotNil(success(result(of: client.rx.request(Raw(path: "/items")))))

        let unavailable = try metrics.expectTimer(HTTPClientMetrics.requestDuration, target() + [("http.response.status_code", "503"), ("error.type", "503")])
        let ok = try metrics.expectTimer(HTTPClientMetrics.requestDuration, target() + [("http.response.status_code", "200")])
        XCTAssertEqual(unavailable.values.count, 1)
        XCTAssertEqual(ok.values.count, 1)
        XCTAssertTrue(ok.values.allSatisfy { $0 > 0 && $0 < 5_000_000_000 }, "nanoseconds of one loopback attempt")
        XCTAssertEqual(metrics.counterTotal(label: HTTPClientMetrics.retries, dimensions: target() + [("error.type", "503")]), 1)
        let active = try metrics.expectMeter(HTTPClientMetrics.activeRequests, target())
        XCTAssertEqual(active.lastValue, 0, "every attempt started has ended")
        XCTAssertEqual(active.values.max(), 1)
    }

    func testAFailureWithoutAnAnswerIsTimedWithItsCode() throws {
        // A port that was just listening: nothing accepts there now.
        let gone = LoopbackHTTPServer()
        try gone.start()
        let closed = gone.baseURL.port ?? 0
        gone.stop()
        let metrics = TestMetrics()
        let client = HTTPClient(baseURL: gone.baseURL, configuration: .init(timeout: 5))
        let recording = client.recordMetrics(factory: metrics)
        defer { recording.dispose() }
        XCTAssertEqual(failure(result(of: client.rx.request(Raw(path: "/x"))))?.code, .transport)
        let timer = try metrics.expectTimer(HTTPClientMetrics.requestDuration, [
            ("http.request.method", "GET"), ("server.address", "127.0.0.1"), ("server.port", String(closed)), ("error.type", "transport"),
        ])
        XCTAssertEqual(timer.values.count, 1)
    }

    func testACancelledAttemptLeavesNoActiveRequest() throws {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 2))
        let metrics = TestMetrics()
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        let recording = client.recordMetrics(factory: metrics)
        defer { recording.dispose() }
        let call = client.rx.request(Raw(path: "/slow")).subscribe(onSuccess: { _ in XCTFail("delivered after dispose") })
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests.count == 1 })
        call.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { (try? metrics.expectMeter(HTTPClientMetrics.activeRequests, self.target()).lastValue) == 0 })
        XCTAssertEqual(try metrics.expectTimer(HTTPClientMetrics.requestDuration, target() + [("error.type", "cancelled")]).values.count, 1)
    }

    func testCircuitChangesAndRefreshesAreCounted() throws {
        server.route(.get, "/down", .status(500))
        let metrics = TestMetrics()
        let protection = HostProtection(circuitBreaker: CircuitBreakerPolicy(failureRatio: 1, minimumRequests: 2, window: 60, breakDuration: 30))
        let auth = OAuthAuthenticator(
            store: InMemoryCredentialStore(OAuthCredential(accessToken: "old", refreshToken: "r", expiresAt: Date(timeIntervalSinceNow: -60))),
            refresher: .custom { _ in .just(OAuthCredential(accessToken: "new", refreshToken: "r2")) }
        )
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, hostProtection: protection), authenticator: auth)
        let recording = client.recordMetrics(factory: metrics)
        defer { recording.dispose() }
        for _ in 0..<2 {
            XCTAssertEqual(failure(result(of: client.rx.request(Authorized(path: "/down"))))?.code, .unacceptableStatusCode)
        }
        XCTAssertEqual(failure(result(of: client.rx.request(Authorized(path: "/down"))))?.code, .circuitOpen)
        XCTAssertEqual(metrics.counterTotal(label: HTTPClientMetrics.circuitBreakerChanges, dimensions: [
            ("server.address", "127.0.0.1"), ("server.port", port), ("state", "open"),
        ]), 1)
        XCTAssertEqual(metrics.counterTotal(label: HTTPClientMetrics.tokenRefreshes, dimensions: [("outcome", "success")]), 1)
    }

    func testDisposingStopsTheRecording() {
        server.route(.get, "/x", .json("{}"))
        let metrics = TestMetrics()
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        client.recordMetrics(factory: metrics).dispose()
        XCTAssertNotNil(success(result(of: client.rx.request(Raw(path: "/x")))))
        XCTAssertTrue(metrics.timers.isEmpty)
    }

    func testTheMetricCacheIsBounded() {
        let made = LockedBox(0)
        let cache = MetricCache<Int, Counter>(limit: 3) { key in
            made.mutate { $0 += 1 }
            return Counter(label: "c", dimensions: [("k", String(key))], factory: NOOPMetricsHandler.instance)
        }
        for round in 0..<2 {
            for key in 0..<5 { _ = cache.metric(for: key) }
            // three kept, two made again each round
            XCTAssertEqual(made.value, round == 0 ? 5 : 7)
        }
    }

    private func parsed(_ url: String) -> String? {
        ServerAddress(url: url).map { "\($0.address) \($0.port)" }
    }

    func testServerAddressReadsHostsPortsAndDefaults() {
        XCTAssertEqual(parsed("https://API.example.com/v1?x=1"), "api.example.com 443")
        XCTAssertEqual(parsed("http://user:<redacted>@example.com:8080/x"), "example.com 8080")
        XCTAssertEqual(parsed("http://[::1]:9000#f"), "::1 9000")
        XCTAssertEqual(parsed("http://[::1]/"), "::1 80")
        XCTAssertEqual(parsed("wss://example.com"), "example.com 443")
        XCTAssertNil(parsed("http://example.com:99999/"))
        XCTAssertNil(parsed("http://example.com:8x/"))
        XCTAssertNil(parsed("http:///path"))
        XCTAssertNil(parsed("not a url"))
        XCTAssertNil(parsed("http://[::1/"))
    }

    func testAnOutboxIsSampledWithItsDepthBytesAndOldestAgeInVirtualTime() throws {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let metrics = TestMetrics()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-outbox-metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let outbox = try Outbox(directory: directory)
        defer { outbox.close() }
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, scheduler: scheduler))
        let sampling = outbox.recordMetrics(name: "orders", every: 5, scheduler: scheduler, factory: metrics)
        defer { sampling.dispose() }
        scheduler.advanceTo(1)
        let dimensions = [("outbox", "orders")]
        XCTAssertEqual(try metrics.expectMeter(HTTPClientMetrics.outboxDepth, dimensions).lastValue, 0)
        for order in 1...2 {
            XCTAssertNotNil(success(result(of: client.rx.enqueue(CreateOrder(order: order), in: outbox))))
        }
        scheduler.advanceTo(12)
        XCTAssertEqual(try metrics.expectMeter(HTTPClientMetrics.outboxDepth, dimensions).lastValue, 2)
        XCTAssertEqual(try metrics.expectMeter(HTTPClientMetrics.outboxBytes, dimensions).lastValue, Double(outbox.byteCount))
        // Enqueued at virtual second 1, sampled at 10.
        XCTAssertEqual(try metrics.expectMeter(HTTPClientMetrics.outboxOldestEntryAge, dimensions).lastValue, 9)
    }
}

private struct Raw: Request {
    typealias Response = Data
    let path: String
}

private struct Authorized: Request {
    typealias Response = Data
    let path: String
    var requiresAuthentication: Bool { true }
}
#endif
