import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// The client's retry loop in virtual time (one tick is one second): the deadline as a budget,
/// `Retry-After` as a floor, what ends each wait, and what stacking an outer retry does.
final class RetryTimingTests: RxTestCase {
    private var scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    private lazy var stub = StubTransport(scheduler: scheduler)

    /// A fresh clock and transport, for a test that runs several scenarios.
    private func reset() {
        scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        stub = StubTransport(scheduler: scheduler)
    }

    private func client(_ policy: RetryPolicy) -> HTTPClient {
        var policy = policy
        policy.retriesWhenReachable = false
        return HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            configuration: .init(retryPolicy: policy, callbackScheduler: scheduler, scheduler: scheduler),
            transport: stub
        )
    }

    private func events(_ single: Single<String>) -> [Recorded<Event<String>>] {
        scheduler.start { single.asObservable() }.events
    }

    private func times(_ path: String) -> Int {
        stub.sentRequests.filter { $0.url?.path == path }.count
    }

    private func error(_ events: [Recorded<Event<String>>]) -> (time: TestTime, error: HTTPClientError)? {
        guard let last = events.last, case .error(let error) = last.value else { return nil }
        return (last.time, error as? HTTPClientError ?? HTTPClientError(.transport))
    }

    // MARK: Deadline

    func testAWaitThatWouldEndPastTheDeadlineIsNotStarted() throws {
        stub.stub(path: "/x", with: .status(503))
        let client = client(RetryPolicy(maxAttempts: 5, delay: .constant(time: 2), deadline: 3))
        let failure = try XCTUnwrap(error(events(client.rx.request(RawText(path: "/x")))))
        // Attempts at 200 and 202; the next wait would end at 204, past 203: fail at 202.
        XCTAssertEqual(failure.time, 202)
        XCTAssertEqual(failure.error.statusCode, 503)
        XCTAssertEqual(failure.error.attempts, 2)
        XCTAssertTrue(failure.error.message?.contains("deadline") ?? false, String(describing: failure.error))
        XCTAssertEqual(times("/x"), 2)
    }

    func testEachAttemptGetsAtMostTheTimeLeft() throws {
        stub.stub(path: "/slow", with: .status(200, delay: .seconds(10)))
        let client = client(RetryPolicy(maxAttempts: 5, delay: .constant(time: 1), deadline: 4))
        let failure = try XCTUnwrap(error(events(client.rx.request(RawText(path: "/slow")))))
        // The first attempt may take 4 s of the 15 s time-out: timed out at 204, no time left.
        XCTAssertEqual(failure.time, 204)
        XCTAssertEqual(failure.error.code, .timedOut)
        XCTAssertEqual(times("/slow"), 1)
    }

    func testTheDeadlineCountsTimeHeldBySuspension() throws {
        stub.stub(path: "/x", with: .status(200))
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 1), deadline: 5))
        client.suspend()
        let failure = try XCTUnwrap(error(events(client.rx.request(RawText(path: "/x")))))
        XCTAssertEqual(failure.time, 205)
        XCTAssertEqual(failure.error.code, .timedOut)
        XCTAssertEqual(failure.error.phase, .notSent)
        XCTAssertEqual(times("/x"), 0)
        client.resume()
        XCTAssertEqual(times("/x"), 0, "a request that timed out while held was sent on resume")
    }

    func testNoDeadlineWaitsAsLongAsThePolicySays() {
        stub.stub(path: "/x", with: .status(503))
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 100)))
        let recorded = events(client.rx.request(RawText(path: "/x")))
        XCTAssertEqual(error(recorded)?.time, 400)
        XCTAssertEqual(times("/x"), 3)
    }

    // MARK: Retry-After

    private func secondAttemptTime(retryAfter value: String, delay: Double = 1, maxRetryAfter: TimeInterval = 120) -> TestTime? {
        reset()
        let answers = LockedBox([StubResponse.status(503, headers: ["Retry-After": value]), .status(200)])
        stub.stub(where: { $0.url?.path == "/ra" }, respond: { _ in answers.mutate { $0.count > 1 ? $0.removeFirst() : $0[0] } })
        let client = client(RetryPolicy(maxAttempts: 2, delay: .constant(time: delay), maxRetryAfter: maxRetryAfter))
        let recorded = events(client.rx.request(RawText(path: "/ra")))
        guard case .next? = recorded.first?.value else { return nil }
        return recorded.first?.time
    }

    func testRetryAfterInSecondsIsAFloor() {
        XCTAssertEqual(secondAttemptTime(retryAfter: "7"), 207)
        XCTAssertEqual(secondAttemptTime(retryAfter: "1", delay: 3), 203, "a shorter Retry-After does not shorten the wait")
    }

    func testRetryAfterAsAnHTTPDate() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let future = formatter.string(from: Date().addingTimeInterval(6))
        let time = try XCTUnwrap(secondAttemptTime(retryAfter: future))
        XCTAssertTrue((204...206).contains(time), "\(time)")
        let past = formatter.string(from: Date().addingTimeInterval(-600))
        XCTAssertEqual(secondAttemptTime(retryAfter: past), 201, "a past date: the planned delay")
    }

    func testGarbageRetryAfterIsIgnoredAndHugeIsCapped() {
        for garbage in ["soon", "-5", "", "1.5", "Thu, 99 Foo 2023"] {
            XCTAssertEqual(secondAttemptTime(retryAfter: garbage), 201, garbage)
        }
        XCTAssertEqual(secondAttemptTime(retryAfter: "99999999999999999999999999", maxRetryAfter: 30), 230)
    }

    func testARetryAfterLongerThanTheDeadlineFailsAtOnce() throws {
        stub.stub(path: "/x", with: .status(429, headers: ["Retry-After": "60"]))
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 1), deadline: 10))
        let failure = try XCTUnwrap(error(events(client.rx.request(RawText(path: "/x")))))
        XCTAssertEqual(failure.time, 200)
        XCTAssertEqual(failure.error.statusCode, 429)
    }

    // MARK: Notifications

    func testOnRetryTellsEachRetry() {
        let told = LockedBox([RetryNotification<HTTPClientError>]())
        stub.stub(path: "/x", with: .status(503))
        let client = client(RetryPolicy(
            maxAttempts: 3, delay: .exponential(initial: 2, multiplier: 3, maxDelay: 60),
            onRetry: { notification in told.mutate { $0.append(notification) } }
        ))
        _ = events(client.rx.request(RawText(path: "/x")))
        let seen = told.value
        XCTAssertEqual(seen.map(\.attempt), [2, 3])
        XCTAssertEqual(seen.map(\.delay), [2, 6])
        XCTAssertEqual(seen.map(\.trigger), [.timer, .timer])
        XCTAssertEqual(seen.map(\.waited), [2, 6])
        XCTAssertEqual(seen.map { $0.error.statusCode }, [503, 503])
    }

    func testAZeroDelayRetriesImmediately() {
        let told = LockedBox([RetryTrigger]())
        stub.stub(path: "/x", with: .status(503))
        let client = client(RetryPolicy(maxAttempts: 2, delay: .immediate, onRetry: { n in told.mutate { $0.append(n.trigger) } }))
        XCTAssertEqual(error(events(client.rx.request(RawText(path: "/x"))))?.time, 200)
        XCTAssertEqual(told.value, [.immediate])
    }

    // MARK: Stacking

    func testAnOuterRetryOnIsTransientDoesNotMultiplyTheClientsAttempts() {
        stub.stub(path: "/x", with: .status(503))
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 1)))
        let stacked = client.rx.request(RawText(path: "/x")).asObservable()
            .retry(3, delay: .constant(time: 1), scheduler: scheduler, shouldRetry: { $0.isTransient })
        let recorded = scheduler.start { stacked }.events
        XCTAssertEqual(times("/x"), 3, "3 client attempts under an outer retry of 3 must stay 3")
        guard case .error(let error as HTTPClientError)? = recorded.last?.value else { return XCTFail("\(recorded)") }
        XCTAssertTrue(error.decidedByRetryPolicy)
        XCTAssertFalse(error.isTransient)
        XCTAssertFalse(error.isRetryable)
        XCTAssertEqual(error.attempts, 3)
    }

    func testAnOuterRetryThatIgnoresTheErrorMultipliesAsDocumented() {
        stub.stub(path: "/x", with: .status(503))
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 1)))
        let stacked = client.rx.request(RawText(path: "/x")).asObservable()
            .retry(3, delay: .constant(time: 1), scheduler: scheduler, shouldRetry: { _ in true })
        _ = scheduler.start { stacked }
        XCTAssertEqual(times("/x"), 9)
    }

    func testWithoutAClientPolicyTheOuterRetryIsTheOnePlace() {
        stub.stub(path: "/x", with: .status(503))
        let client = client(.none)
        let stacked = client.rx.request(RawText(path: "/x")).asObservable()
            .retry(3, delay: .constant(time: 1), scheduler: scheduler, shouldRetry: { $0.isRetryable })
        _ = scheduler.start { stacked }
        XCTAssertEqual(times("/x"), 3)
    }

    func testARetryableRequestReplacesTheClientsPolicy() {
        struct Flaky: RetryableRequest {
            typealias Response = String
            let scheduler: TestScheduler
            var path: String { "/x" }
            var retryPolicy: RetryPolicy { RetryPolicy(maxAttempts: 2, delay: .constant(time: 5), retriesWhenReachable: false) }
        }
        stub.stub(path: "/x", with: .status(503))
        let client = client(RetryPolicy(maxAttempts: 4, delay: .constant(time: 1)))
        let recorded = scheduler.start { client.rx.request(Flaky(scheduler: self.scheduler)).asObservable() }.events
        XCTAssertEqual(times("/x"), 2)
        XCTAssertEqual(recorded.last?.time, 205)
    }

    // MARK: Cancellation

    func testDisposingWhileWaitingStopsTheRetry() {
        stub.stub(path: "/x", with: .status(503))
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 500)))
        let observer = scheduler.start(disposed: 300) { client.rx.request(RawText(path: "/x")).asObservable() }
        XCTAssertEqual(observer.events.count, 0)
        scheduler.advanceTo(2_000)
        XCTAssertEqual(times("/x"), 1)
    }
}

/// A value behind a lock, for closures that run on other threads.
// @unchecked Sendable: `stored` is only touched under `lock`.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.withLock { stored }
    }

    @discardableResult
    func mutate<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&stored) }
    }
}
