import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// `client.events` in virtual time (one tick is one second): every step of a call, in order, with
/// its request id and a redacted URL; hot; and `client.rx.response(_:)` with status and headers.
final class ClientEventsTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    private lazy var stub = StubTransport(scheduler: scheduler)

    private func client(policy: RetryPolicy = RetryPolicy(maxAttempts: 3, delay: .constant(time: 2)), plugins: [any HTTPPlugin] = []) -> HTTPClient {
        var policy = policy
        policy.retriesWhenReachable = false
        return HTTPClient(baseURL: URL(string: "https://api.test")!,
                          configuration: .init(retryPolicy: policy, callbackScheduler: scheduler, scheduler: scheduler), plugins: plugins, transport: stub)
    }

    private func record(_ client: HTTPClient) -> (LockedBox<[HTTPClientEvent]>, Disposable) {
        let events = LockedBox([HTTPClientEvent]())
        let subscription = client.events.subscribe(onNext: { event in events.mutate { $0.append(event) } })
        return (events, subscription)
    }

    private func describe(_ kind: HTTPClientEvent.Kind) -> String {
        switch kind {
        case .started: return "started"
        case .held(let reason): return "held(\(reason.rawValue))"
        case .attemptStarted(let attempt): return "attempt \(attempt)"
        case .response(let attempt, let status, let duration): return "response \(attempt) \(status) \(Int(duration))s"
        case .attemptFailed(let attempt, let code, let phase, _): return "failed \(attempt) \(code.rawValue) \(phase.rawValue)"
        case .retryScheduled(let next, let delay, let code, let status): return "retry \(next) in \(Int(delay))s after \(code.rawValue) \(status ?? 0)"
        case .waitEnded(let trigger, let waited): return "wait ended \(trigger.rawValue) \(Int(waited))s"
        case .authRefreshStarted: return "refresh started"
        case .authRefreshEnded(let succeeded, _): return "refresh ended \(succeeded)"
        case .circuitChanged(let state): return "circuit \(state)"
        case .completed(let outcome, let duration, let attempts): return "completed \(outcome) \(Int(duration))s \(attempts)"
        case .webSocketOpened, .webSocketReconnecting, .webSocketClosed, .fleetEngineChanged, .outboxEnqueued, .outboxAttempt, .outboxOutcome:
            return "\(kind)"
        }
    }

    func testEveryStepOfACallWithARetryInOrder() throws {
        let answers = LockedBox([StubResponse.status(503, delay: .seconds(1)), .status(200, body: Data("ok".utf8), delay: .seconds(1))])
        stub.stub(where: { _ in true }, respond: { _ in answers.mutate { $0.count > 1 ? $0.removeFirst() : $0[0] } })
        let client = client()
        let (events, subscription) = record(client)
        _ = scheduler.start { client.rx.request(RawText(path: "/feed?access_token=s3cret")).asObservable() }
        subscription.dispose()
        let seen = events.value
        XCTAssertEqual(seen.map { describe($0.kind) }, [
            "started", "attempt 1", "response 1 503 1s", "retry 2 in 2s after unacceptableStatusCode 503",
            "wait ended timer 2s", "attempt 2", "response 2 200 1s", "completed 200 4s 2",
        ])
        XCTAssertEqual(Set(seen.compactMap(\.requestID)).count, 1)
        XCTAssertEqual(seen.first?.method, .get)
        let text = seen.map { "\($0) \($0.url ?? "")" }.joined(separator: "\n")
        XCTAssertFalse(text.contains("s3cret"), text)
        XCTAssertTrue(seen.allSatisfy { $0.url == "https://api.test/feed?access_token=<redacted>" })
    }

    func testAFailedCallEndsWithItsCodeAndPhase() {
        stub.stub(where: { _ in true }, with: .connectionRefused(delay: .seconds(1)))
        let client = client(policy: .none)
        let (events, subscription) = record(client)
        _ = scheduler.start { client.rx.request(RawText(path: "/x")).asObservable() }
        subscription.dispose()
        XCTAssertEqual(events.value.map { describe($0.kind) }, [
            "started", "attempt 1", "failed 1 transport notSent", "completed transport (not sent) 1s 1",
        ])
    }

    func testHeldCallsSayWhy() {
        stub.stub(where: { _ in true }, with: .status(200))
        let client = client(policy: .none)
        let (events, subscription) = record(client)
        client.suspend()
        _ = scheduler.scheduleAt(250) { client.resume() }
        _ = scheduler.start { client.rx.request(RawText(path: "/x")).asObservable() }
        subscription.dispose()
        XCTAssertEqual(events.value.prefix(3).map { describe($0.kind) }, ["started", "held(suspended)", "attempt 1"])
        XCTAssertEqual(events.value[2].timestamp.timeIntervalSince(events.value[0].timestamp), 50)
    }

    func testEventsAreHotAndEachCallHasItsOwnID() {
        stub.stub(where: { _ in true }, with: .status(200))
        let client = client(policy: .none)
        _ = scheduler.start(created: 10, subscribed: 20, disposed: 30) { client.rx.request(RawText(path: "/before")).asObservable() }
        let (events, subscription) = record(client)
        for tick in [300, 300, 301] as [TestTime] {
            _ = scheduler.scheduleAt(tick) { _ = client.rx.request(RawText(path: "/after")).subscribe() }
        }
        scheduler.start()
        subscription.dispose()
        XCTAssertFalse(events.value.contains { $0.url?.contains("/before") ?? false }, "events replayed")
        let ids = events.value.compactMap(\.requestID)
        XCTAssertEqual(Set(ids).count, 3)
        for id in Set(ids) {
            let own = events.value.filter { $0.requestID == id }.map { describe($0.kind) }
            XCTAssertEqual(own.first, "started")
            XCTAssertTrue(own.last?.hasPrefix("completed") ?? false, "\(own)")
        }
    }

    func testTheLoggersRequestIDIsTheEventsRequestID() throws {
        stub.stub(where: { _ in true }, with: .status(200))
        let lines = LineCollector()
        let client = client(policy: .none, plugins: [NetworkLoggerPlugin(sink: lines.append)])
        let (events, subscription) = record(client)
        _ = scheduler.start { client.rx.request(RawText(path: "/x")).asObservable() }
        subscription.dispose()
        let id = try XCTUnwrap(events.value.first?.requestID)
        XCTAssertEqual(lines.lines.count, 2)
        XCTAssertTrue(lines.lines.allSatisfy { $0.contains("#\(id) ") }, "\(lines.lines)")
    }

    func testCircuitChangesAndRefreshesAreEventsToo() {
        stub.stub(path: "/x", with: .status(500))
        let policy = RetryPolicy.none
        let protection = HostProtection(circuitBreaker: CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 1, window: 10, breakDuration: 5))
        let auth = OAuthAuthenticator(store: InMemoryCredentialStore(OAuthCredential(accessToken: "a", refreshToken: "r", expiresAt: scheduler.now)),
                                      refresher: .custom { [scheduler] _ in Single.just(OAuthCredential(accessToken: "b")).delay(.seconds(1), scheduler: scheduler) },
                                      scheduler: scheduler)
        let client = HTTPClient(baseURL: URL(string: "https://api.test")!,
                                configuration: .init(retryPolicy: policy, callbackScheduler: scheduler, hostProtection: protection, scheduler: scheduler),
                                transport: stub, authenticator: auth)
        let (events, subscription) = record(client)
        _ = scheduler.start { client.rx.request(RawText(path: "/x")).asObservable() }
        subscription.dispose()
        let kinds = events.value.map { describe($0.kind) }
        XCTAssertTrue(kinds.contains("refresh started"), "\(kinds)")
        XCTAssertTrue(kinds.contains("refresh ended true"), "\(kinds)")
        XCTAssertTrue(kinds.contains { $0.hasPrefix("circuit open") }, "\(kinds)")
        XCTAssertTrue(kinds.contains("held(credential)"), "\(kinds)")
        let circuit = events.value.first { if case .circuitChanged = $0.kind { return true }; return false }
        XCTAssertNil(circuit?.requestID)
        XCTAssertEqual(circuit?.url, "https://api.test:443")
    }

    // MARK: response(_:)

    func testAResponseCarriesStatusHeadersAndTiming() throws {
        stub.stub(path: "/users/1", with: StubResponse(result: .success(HTTPResponse(
            statusCode: 201, headers: ["ETag": "\"v7\"", "Content-Type": "application/json"], body: Data(#"{"id":1,"name":"Ada"}"#.utf8)
        )), delay: .seconds(2)))
        struct GetUser: Request { typealias Response = User; var path: String { "/users/1" } }
        let client = client(policy: .none)
        let observer = scheduler.start { client.rx.response(GetUser()).asObservable() }
        guard case .next(let response)? = observer.events.first?.value else { return XCTFail("\(observer.events)") }
        XCTAssertEqual(response.value, User(id: 1, name: "Ada"))
        XCTAssertEqual(response.statusCode, 201)
        XCTAssertEqual(response.value(forHTTPHeaderField: "etag"), "\"v7\"")
        XCTAssertEqual(response.duration, 2)
        XCTAssertEqual(response.attempts, 1)
        XCTAssertEqual(response.url?.path, "/users/1")
    }

    func testHTTPResponseWorksAsAResponseType() throws {
        stub.stub(path: "/raw", with: .status(200, body: Data("hi".utf8), headers: ["X-A": "1"]))
        struct Raw: Request { typealias Response = HTTPResponse; var path: String { "/raw" } }
        let observer = scheduler.start { self.client(policy: .none).rx.request(Raw()).asObservable() }
        guard case .next(let response)? = observer.events.first?.value else { return XCTFail("\(observer.events)") }
        XCTAssertEqual(response.body, Data("hi".utf8))
        XCTAssertEqual(response.value(forHTTPHeaderField: "x-a"), "1")
    }
}

/// What `print(event)` shows: words and numbers, never `Optional(...)` or a type path.
final class ClientEventDescriptionTests: XCTestCase {
    func testEventsPrintReadably() {
        let url = "https://api.test/users?token=<redacted>"
        let completed = HTTPClientEvent(
            requestID: 14, method: .get, url: url, timestamp: Date(),
            kind: .completed(.failure(code: .unacceptableStatusCode, statusCode: 503, phase: .responded), duration: 1.5836650133132935, attempts: 7)
        )
        XCTAssertEqual("\(completed)", "#14 GET \(url): 503 unacceptableStatusCode after 7 attempts in 1.58 s")
        let failed = HTTPClientEvent(requestID: 3, method: .post, url: nil, timestamp: Date(),
                                     kind: .attemptFailed(attempt: 2, code: .transport, phase: .notSent, duration: 0.0123))
        XCTAssertEqual("\(failed)", "#3 POST: attempt 2: transport (not sent) after 0.0123 s")
        XCTAssertEqual("\(HTTPClientEvent.Kind.completed(.success(statusCode: 200), duration: 0.25, attempts: 1))", "200 after 1 attempt in 0.25 s")
        XCTAssertEqual("\(HTTPClientError.Code.timedOut)", "timedOut")
        for event in ["\(completed)", "\(failed)"] {
            XCTAssertFalse(event.contains("Optional") || event.contains("RxHTTP."), event)
        }
    }
}
