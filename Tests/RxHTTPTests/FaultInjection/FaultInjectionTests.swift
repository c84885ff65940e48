import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// `FaultInjection`: rates within binomial bounds for a seed, truthful phases against a real server,
/// delays in virtual time, matching, switching at run time, and no delivery after a dispose.
final class FaultInjectionTests: LoopbackClientTestCase {
    private func request(_ path: String, method: String = "GET", host: String = "127.0.0.1") -> HTTPTransportRequest {
        var request = HTTPTransportRequest(url: URL(string: "http://\(host):1\(path)")!)
        request.httpMethod = method
        return request
    }

    func testRatesStayWithinBinomialBoundsAndASeedRepeatsItsFaults() {
        let rules = [FaultRule(.latency(0.1), rate: 0.3), FaultRule(.status(503), rate: 0.1), FaultRule(.dropAfterSending, rate: 0.05)]
        let faults = FaultInjection(wrapping: StubTransport(), rules: rules, seed: 42)
        let twin = FaultInjection(wrapping: StubTransport(), rules: rules, seed: 42)
        let count = 10_000
        var decisions: [FaultInjection.Decision] = []
        for _ in 0..<count {
            let decision = faults.decide(request("/x"))
            decisions.append(decision)
            XCTAssertEqual(twin.decide(request("/x")), decision, "the same seed gives the same faults")
        }
        // Each bound is the mean ± 4.5 standard deviations of a binomial draw.
        func assertBinomial(_ observed: Int, rate: Double, of trials: Int, _ name: String) {
            let mean = Double(trials) * rate
            let spread = 4.5 * (Double(trials) * rate * (1 - rate)).squareRoot()
            XCTAssertTrue(abs(Double(observed) - mean) <= spread, "\(name): \(observed) of \(trials), expected \(mean) ± \(spread)")
        }
        let latencies = decisions.filter { $0.latency > 0 }.count
        let statuses = decisions.filter { $0.fault == .status(503) }.count
        let drops = decisions.filter { $0.fault == .dropAfterSending }.count
        assertBinomial(latencies, rate: 0.3, of: count, "latency")
        assertBinomial(statuses, rate: 0.1, of: count, "503")
        // The drop rule is drawn only for requests the 503 rule spared.
        assertBinomial(drops, rate: 0.05, of: count - statuses, "drop")
        XCTAssertEqual(faults.counts, ["latency": latencies, "status 503": statuses, "dropAfterSending": drops])
        XCTAssertEqual(faults.requestCount, count)
    }

    func testAnotherSeedGivesOtherFaults() {
        let rules = [FaultRule(.refuseConnection, rate: 0.5)]
        let first = FaultInjection(wrapping: StubTransport(), rules: rules, seed: 1)
        let second = FaultInjection(wrapping: StubTransport(), rules: rules, seed: 2)
        let a = (0..<64).map { _ in first.decide(request("/x")).fault != nil }
        let b = (0..<64).map { _ in second.decide(request("/x")).fault != nil }
        XCTAssertNotEqual(a, b)
    }

    // MARK: Phases, against a real server

    private func outcome(_ fault: Fault, timeout: TimeInterval = 5) -> Result<String, HTTPClientError>? {
        server.route(.get, "/orders", .text("done"))
        let faults = FaultInjection(wrapping: URLSessionTransport(), rules: [FaultRule(fault, rate: 1)], seed: 7)
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: timeout, retryPolicy: .none), transport: faults)
        defer { _ = client.shutdown(gracePeriod: 0) }
        return result(of: client.rx.request(RawText(path: "/orders")))
    }

    func testARefusedConnectionSendsNothing() throws {
        guard case .failure(let error)? = outcome(.refuseConnection) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.phase, .notSent)
        XCTAssertTrue(error.description.contains("injected"), error.description)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testADropAfterSendingReachesTheServerAndLosesTheAnswer() throws {
        guard case .failure(let error)? = outcome(.dropAfterSending) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.phase, .sentWithoutResponse)
        XCTAssertEqual(server.requests.count, 1, "the server acted on it")
    }

    func testATimeOutReachesTheServerAndEndsAtTheRequestsTimeOut() throws {
        let started = Date()
        guard case .failure(let error)? = outcome(.timeout, timeout: 0.3) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.code, .timedOut)
        XCTAssertEqual(error.phase, .sentWithoutResponse)
        XCTAssertEqual(server.requests.count, 1)
        XCTAssertLessThan(Date().timeIntervalSince(started), 2)
    }

    func testAStatusStormAnswersWithoutTheServerAndCarriesRetryAfter() throws {
        guard case .failure(let error)? = outcome(.status(503, retryAfter: 2)) else { return XCTFail("expected a failure") }
        XCTAssertEqual(error.statusCode, 503)
        XCTAssertEqual(error.phase, .responded)
        XCTAssertEqual(error.retryAfter(now: Date()), 2)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testTheClientsRetryPolicyRidesOutAStorm() throws {
        server.route(.get, "/orders", .text("done"))
        let faults = FaultInjection(wrapping: URLSessionTransport(), rules: [FaultRule(.status(503, retryAfter: 0), rate: 1)], seed: 7)
        var policy = RetryPolicy(maxAttempts: 4, delay: .constant(time: 0.01))
        policy.retriesWhenReachable = false
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: policy), transport: faults)
        defer { _ = client.shutdown(gracePeriod: 0) }
        // Two attempts hit the storm, then it is switched off at run time.
        let switched = LockedBox(false)
        let watching = client.events.subscribe(onNext: { event in
            if case .retryScheduled(let next, _, _, _) = event.kind, next == 3, !switched.value {
                switched.mutate { $0 = true }
                faults.isEnabled = false
            }
        })
        let answer = result(of: client.rx.request(RawText(path: "/orders")))
        watching.dispose()
        guard case .success(let text)? = answer else { return XCTFail("expected a success, got \(String(describing: answer))") }
        XCTAssertEqual(text, "done")
        XCTAssertEqual(faults.counts, ["status 503": 2])
        XCTAssertEqual(server.requests.count, 1)
    }

    // MARK: Virtual time

    func testLatencyAndSlowBodiesRunOnTheGivenSchedulerInVirtualTime() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001, simulateProcessingDelay: false)
        let stub = StubTransport(scheduler: scheduler)
        stub.stub(path: "/big", with: .status(200, body: Data(count: 1_000)))
        let faults = FaultInjection(
            wrapping: stub, rules: [FaultRule(.latency(2), rate: 1), FaultRule(.slowBody(bytesPerSecond: 500), rate: 1)],
            seed: 1, scheduler: scheduler
        )
        let answeredAt = LockedBox<TestTime?>(nil)
        _ = faults.send(request("/big"), options: .standard) { result in
            XCTAssertEqual((try? result.get())?.body.count, 1_000)
            answeredAt.mutate { $0 = scheduler.clock }
        }
        scheduler.advanceTo(3_999)
        XCTAssertNil(answeredAt.value, "2 s of latency and 2 s for 1,000 bytes at 500 B/s")
        scheduler.advanceTo(4_001)
        XCTAssertEqual(answeredAt.value, 4_000)
    }

    func testASlowStreamIsPacedChunkByChunkInOrder() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001, simulateProcessingDelay: false)
        let stub = StubTransport(scheduler: scheduler)
        stub.stub(path: "/stream", with: .status(200, body: Data(count: 300)))
        let faults = FaultInjection(wrapping: stub, rules: [FaultRule(.slowBody(bytesPerSecond: 100), rate: 1)], seed: 1, scheduler: scheduler)
        let parts = LockedBox([String]())
        _ = faults.stream(request("/stream"), options: .standard) { part in
            let name = switch part {
            case .success(.head): "head"
            case .success(.body(let chunk)): "body \(chunk.count)"
            case .success(.end): "end"
            case .failure: "failure"
            }
            parts.mutate { $0.append("\(name) at \(scheduler.clock)") }
        }
        scheduler.advanceTo(10_000)
        XCTAssertEqual(parts.value, ["head at 0", "body 300 at 3000", "end at 3000"])
    }

    func testRulesMatchHostPathAndMethod() {
        let faults = FaultInjection(wrapping: StubTransport(), rules: [
            FaultRule(.refuseConnection, rate: 1, host: "API.example.com", pathPrefix: "/orders", methods: [.post]),
        ], seed: 3)
        XCTAssertEqual(faults.decide(request("/orders/1", method: "POST", host: "api.example.com")).fault, .refuseConnection)
        XCTAssertNil(faults.decide(request("/orders/1", method: "GET", host: "api.example.com")).fault)
        XCTAssertNil(faults.decide(request("/users", method: "POST", host: "api.example.com")).fault)
        XCTAssertNil(faults.decide(request("/orders/1", method: "POST", host: "other.example.com")).fault)
        faults.isEnabled = false
        XCTAssertNil(faults.decide(request("/orders/1", method: "POST", host: "api.example.com")).fault)
        faults.isEnabled = true
        faults.rules = []
        XCTAssertNil(faults.decide(request("/orders/1", method: "POST", host: "api.example.com")).fault)
    }

    func testBoundsAreClamped() {
        XCTAssertEqual(FaultRule(.latency(.infinity), rate: 2).fault, .latency(3_600))
        XCTAssertEqual(FaultRule(.latency(.nan), rate: .nan).rate, 0)
        XCTAssertEqual(FaultRule(.status(42, retryAfter: -5), rate: 1).fault, .status(100, retryAfter: 0))
        XCTAssertEqual(FaultRule(.slowBody(bytesPerSecond: 0), rate: 1).fault, .slowBody(bytesPerSecond: 1))
    }

    func testADisposedExchangeHearsNothing() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001, simulateProcessingDelay: false)
        let faults = FaultInjection(wrapping: StubTransport(scheduler: scheduler), rules: [FaultRule(.status(429), rate: 1)], seed: 1, scheduler: scheduler)
        let heard = LockedBox(false)
        let exchange = faults.send(request("/x"), options: .standard) { _ in heard.mutate { $0 = true } }
        exchange.dispose()
        scheduler.advanceTo(1_000)
        XCTAssertFalse(heard.value)
    }
}
