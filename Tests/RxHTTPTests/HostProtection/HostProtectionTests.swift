import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// Per-host protection in virtual time (one tick is one second): the `Retry-After` cooldown shared
/// by every caller, the circuit breaker and the bounded queue. (The retry budget: RetryBudgetTests.)
final class HostProtectionTests: VirtualTimeClientTestCase {
    // MARK: Cooldown

    func testACooldownIsSharedByEveryCallerOfTheHostAndNoOther() {
        script("/x", [.status(429, headers: ["Retry-After": "10"]), .status(200, body: Data("ok".utf8))])
        stub.stub(where: { $0.url?.host == "b.test" }, with: .status(200, body: Data("b".utf8)))
        let client = client()
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 200, into: outcomes)
        for index in 0..<19 {
            call(client.rx.request(RawText(path: "/x")), at: 201 + TestTime(index % 3), into: outcomes)
        }
        call(client.rx.request(OtherHost(baseURL: URL(string: "https://b.test")!)), at: 202, into: outcomes)
        scheduler.start()
        let results = outcomes.value
        XCTAssertEqual(results.count, 21)
        XCTAssertEqual(results.filter { $0.1 == "ok" }.map(\.0), Array(repeating: 210, count: 20), "\(results)")
        XCTAssertEqual(results.first { $0.1 == "b" }?.0, 202, "another host waited for this one's cooldown")
        XCTAssertEqual(sends("/x"), 21, "one 429, then twenty sends after the cooldown")
    }

    func testADeadlineShorterThanTheCooldownFailsAtOnce() {
        script("/x", [.status(503, headers: ["Retry-After": "30"]), .status(200)])
        let client = client(policy: RetryPolicy(maxAttempts: 1, deadline: 5))
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 200, into: outcomes)
        call(client.rx.request(RawText(path: "/x")), at: 201, into: outcomes)
        scheduler.start()
        XCTAssertEqual(outcomes.value.map(\.0), [200, 201])
        XCTAssertEqual(outcomes.value.map(\.1), ["unacceptableStatusCode", "unacceptableStatusCode"])
        XCTAssertEqual(sends("/x"), 1)
    }

    func testTheCooldownIsCapped() {
        script("/x", [.status(429, headers: ["Retry-After": "86400"]), .status(200, body: Data("ok".utf8))])
        let client = client(HostProtection(maxCooldown: 20), policy: RetryPolicy(maxAttempts: 1))
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 200, into: outcomes)
        call(client.rx.request(RawText(path: "/x")), at: 201, into: outcomes)
        scheduler.start()
        XCTAssertEqual(outcomes.value.last?.0, 220)
    }

    // MARK: Circuit breaker

    private let breaker = CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 4, window: 30, breakDuration: 5)

    func testTheBreakerOpensAtTheRatioAndNotBelowTheMinimum() {
        script("/x", [.status(500), .status(200), .status(500), .status(500), .status(200)])
        let client = client(HostProtection(circuitBreaker: breaker), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        for tick in 200..<205 as Range<TestTime> {
            call(client.rx.request(RawText(path: "/x")), at: tick, into: outcomes)
        }
        scheduler.start()
        // 500, ok, 500 (3 counted, below the minimum), 500 (3 of 4 failed: open), then refused.
        XCTAssertEqual(outcomes.value.map(\.1), ["unacceptableStatusCode", "", "unacceptableStatusCode", "unacceptableStatusCode", "circuitOpen"])
        XCTAssertEqual(sends("/x"), 4)
        if case .open = client.circuitState(for: hostA) {} else { XCTFail("\(client.circuitState(for: hostA))") }
    }

    func testTheBreakerIgnoresClientErrorsAndCancellations() {
        stub.stub(path: "/missing", with: .status(404))
        stub.stub(path: "/slow", with: .status(500, delay: .seconds(10)))
        let client = client(HostProtection(circuitBreaker: breaker), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        for tick in 200..<210 as Range<TestTime> {
            call(client.rx.request(RawText(path: "/missing")), at: tick, into: outcomes)
        }
        scheduler.start()
        let cancelled = scheduler.start(disposed: 1_500) { client.rx.request(RawText(path: "/slow")).asObservable() }
        _ = cancelled
        XCTAssertEqual(client.circuitState(for: hostA), .closed)
        XCTAssertEqual(sends("/missing"), 10)
    }

    func testTheBreakerHalfOpensAfterItsBreakAndATrialClosesIt() {
        script("/x", [.status(500), .status(500), .status(500), .status(500), .status(200, body: Data("ok".utf8))])
        let client = client(HostProtection(circuitBreaker: breaker), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        for tick in 200..<204 as Range<TestTime> { call(client.rx.request(RawText(path: "/x")), at: tick, into: outcomes) }
        call(client.rx.request(RawText(path: "/x")), at: 205, into: outcomes)       // open until 208
        call(client.rx.request(RawText(path: "/x")), at: 209, into: outcomes)       // half-open: the trial
        call(client.rx.request(RawText(path: "/x")), at: 210, into: outcomes)       // closed again
        scheduler.start()
        XCTAssertEqual(outcomes.value.suffix(3).map(\.1), ["circuitOpen", "ok", "ok"])
        XCTAssertEqual(client.circuitState(for: hostA), .closed)
    }

    func testAFailedTrialOpensAgainAndOthersFailFastMeanwhile() {
        script("/x", [.status(500)])
        stub.stub(path: "/trial", with: .status(500, delay: .seconds(2)))
        let client = client(HostProtection(circuitBreaker: breaker), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        for tick in 200..<204 as Range<TestTime> { call(client.rx.request(RawText(path: "/x")), at: tick, into: outcomes) }
        call(client.rx.request(RawText(path: "/trial")), at: 210, into: outcomes)   // the trial, answers at 212
        call(client.rx.request(RawText(path: "/x")), at: 211, into: outcomes)       // fails fast: trial in flight
        call(client.rx.request(RawText(path: "/x")), at: 213, into: outcomes)       // open again until 217
        scheduler.start()
        XCTAssertEqual(outcomes.value.suffix(3).map(\.1), ["circuitOpen", "unacceptableStatusCode", "circuitOpen"])
        XCTAssertEqual(outcomes.value.suffix(3).map(\.0), [211, 212, 213])
    }

    func testRetryAfterLengthensTheOpenPeriodAndCircuitOpenSaysWhen() throws {
        script("/x", [.status(500), .status(500), .status(500), .status(503, headers: ["Retry-After": "60"])])
        let client = client(HostProtection(circuitBreaker: breaker, honorsRetryAfterCooldown: false), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        for tick in 200..<204 as Range<TestTime> { call(client.rx.request(RawText(path: "/x")), at: tick, into: outcomes) }
        scheduler.start()
        guard case .open(let until) = client.circuitState(for: hostA) else { return XCTFail("not open") }
        XCTAssertEqual(until.timeIntervalSince(scheduler.now), 60, accuracy: 1)
        let refused = scheduler.start(created: 205, subscribed: 206, disposed: 300) { client.rx.request(RawText(path: "/x")).asObservable() }
        guard case .error(let error as HTTPClientError)? = refused.events.first?.value else { return XCTFail("\(refused.events)") }
        XCTAssertEqual(error.code, .circuitOpen)
        XCTAssertEqual(try XCTUnwrap(error.retryAfter()), 57, accuracy: 1)
    }

    // MARK: Concurrency

    func testRequestsBeyondTheLimitQueueInOrderAndAFullQueueRejects() {
        stub.stub(path: "/x", with: .status(200, body: Data("ok".utf8), delay: .seconds(10)))
        let client = client(HostProtection(maxConcurrentRequests: 2, maxQueuedRequests: 3), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        for index in 0..<6 {
            call(client.rx.request(RawText(path: "/x", headers: ["X-Index": "\(index)"])), at: 200, into: outcomes)
        }
        scheduler.start()
        let results = outcomes.value.sorted { $0.0 < $1.0 }
        XCTAssertEqual(results.map(\.1), ["rejected", "ok", "ok", "ok", "ok", "ok"])
        XCTAssertEqual(results.map(\.0), [200, 210, 210, 220, 220, 230])
        XCTAssertEqual(stub.sentRequests.map { $0.value(forHTTPHeaderField: "X-Index") }, ["0", "1", "2", "3", "4"], "not first in, first out")
    }

    func testTimeQueuedCountsAgainstTheDeadline() {
        stub.stub(path: "/slow", with: .status(200, delay: .seconds(10)))
        let client = client(HostProtection(maxConcurrentRequests: 1), policy: RetryPolicy(maxAttempts: 1, deadline: 3))
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/slow", timeout: 60)), at: 200, into: outcomes)
        call(client.rx.request(RawText(path: "/slow", timeout: 60)), at: 201, into: outcomes)
        scheduler.start()
        XCTAssertEqual(outcomes.value.map(\.0), [203, 204])
        XCTAssertEqual(outcomes.value.map(\.1), ["timedOut", "timedOut"])
        // The second waited from 201 to 203 in the queue, leaving it one second of its three.
        XCTAssertEqual(sends("/slow"), 2)
    }

    func testTheDefaultsAreSafe() {
        let defaults = HTTPClient.Configuration().hostProtection
        XCTAssertTrue(defaults.honorsRetryAfterCooldown)
        XCTAssertEqual(defaults.retryBudget, RetryBudget(ratio: 0.5, minRetriesPerSecond: 10))
        XCTAssertNil(defaults.circuitBreaker)
        XCTAssertNil(defaults.maxConcurrentRequests)
    }
}

/// A request to another host than the client's base URL.
private struct OtherHost: Request {
    typealias Response = String
    let baseURL: URL?
    var path: String { "/b" }
}
