import Foundation
import RxCore
import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// `Configuration(interceptors:)` through a real transport and a real server: what an interceptor
/// may do before and after each attempt, and where it sits among the built-ins.
final class InterceptorTests: LoopbackClientTestCase {
    private func client(_ interceptors: [any HTTPInterceptor], policy: RetryPolicy = .none, authenticator: (any Authenticator)? = nil) -> HTTPClient {
        HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: 5, retryPolicy: policy, interceptors: interceptors),
            authenticator: authenticator
        )
    }

    private func text(_ client: HTTPClient, _ path: String = "/x") -> Result<String, HTTPClientError>? {
        result(of: client.rx.request(Text(path: path)))
    }

    func testAnInterceptorAdaptsEveryAttempt() {
        server.route(.get, "/x", responses: [.status(503), .text("ok")])
        let client = client([Adapter()], policy: RetryPolicy(maxAttempts: 2, delay: .immediate))
        XCTAssertEqual(success(text(client)), "ok")
        XCTAssertEqual(server.requests(to: "/x").map { $0.header("X-Attempt") }, ["1", "2"])
    }

    func testAnAnswerWithoutTheNetworkSendsNothing() {
        let client = client([Answerer()])
        XCTAssertEqual(success(text(client)), "from the interceptor")
        XCTAssertEqual(server.requests.count, 0)
    }

    func testARefusalFailsTheCallWithoutSendingOrRetrying() {
        let client = client([Refuser()], policy: RetryPolicy(maxAttempts: 3, delay: .immediate))
        let error = failure(text(client))
        XCTAssertEqual(error?.code, .rejected)
        XCTAssertEqual(error?.attempts, 0)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testAHeldAttemptGoesOnWhenReleasedAndAHoldIsCancelledWithTheCall() throws {
        server.route(.get, "/x", .text("ok"))
        let holder = Holder()
        let client = client([holder])
        // released: the attempt goes on
        let box = ResultBox<String>()
        let done = expectation(description: "released")
        let subscription = client.rx.request(Text(path: "/x")).subscribe(onSuccess: { box.set(.success($0)); done.fulfill() })
        XCTAssertTrue(waitUntil(timeout: 2) { holder.waiting == 1 })
        XCTAssertEqual(server.requests.count, 0)
        holder.releaseAll()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(success(box.value), "ok")
        subscription.dispose()
        // cancelled: the hold is cancelled, nothing is sent
        let cancelled = client.rx.request(Text(path: "/x")).subscribe(onSuccess: { _ in XCTFail("delivered after dispose") })
        XCTAssertTrue(waitUntil(timeout: 2) { holder.waiting == 1 })
        cancelled.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { holder.cancelledHolds == 1 })
        XCTAssertEqual(server.requests.count, 1)
    }

    func testVerdictsRetryReplayAndStopAreHonoured() {
        server.route(.get, "/x", responses: [.text("first"), .text("second"), .text("third")])
        // retry after a delay: the interceptor wants the third answer
        let retrying = client([Verdicts { body, call in call.attempt < 3 ? .retry(after: 0.01) : .proceed }])
        XCTAssertEqual(success(text(retrying)), "third")

        server.route(.get, "/y", responses: [.text("first"), .text("second")])
        let replaying = client([Verdicts { _, call in call.replays == 0 ? .replay : .proceed }])
        XCTAssertEqual(success(text(replaying, "/y")), "second")

        let stopping = client([Verdicts { _, _ in .stop(HTTPClientError(.envelopeFailure, message: "no")) }])
        XCTAssertEqual(failure(text(stopping, "/y"))?.code, .envelopeFailure)
    }

    func testAReplacementTurnsAFailureIntoAnAnswer() {
        server.route(.get, "/x", .status(500))
        let client = client([Verdicts { result, _ in
            if case .failure = result { return .replace(.success(HTTPResponse(statusCode: 200, headers: [:], body: Data("stale".utf8), url: nil))) }
            return .proceed
        }])
        XCTAssertEqual(success(text(client)), "stale")
    }

    func testUserInterceptorsAreOutsideTheRetryPolicyAndSeeEachAttemptOnce() {
        server.route(.get, "/x", responses: [.status(503), .status(503), .text("ok")])
        let counter = Counter()
        let client = client([counter], policy: RetryPolicy(maxAttempts: 3, delay: .immediate))
        XCTAssertEqual(success(text(client)), "ok")
        // prepared for each of the 3 attempts; told only the outcome the retry policy let out
        XCTAssertEqual(counter.prepared, 3)
        XCTAssertEqual(counter.received, ["200"])
    }

    func testAnInterceptorSeesTheRequestBeforeItIsSigned() {
        server.route(.get, "/x", .text("ok"))
        let auth = OAuthAuthenticator(store: InMemoryCredentialStore(OAuthCredential(accessToken: "t")), refresher: .custom { _ in .error(URLError(.badURL)) })
        let seen = LockedBox<String?>("unset")
        let client = client([Observer { request in seen.mutate { $0 = request.value(forHTTPHeaderField: "Authorization") } }], authenticator: auth)
        XCTAssertEqual(success(text(client)), "ok")
        XCTAssertNil(seen.value ?? nil, "the interceptor is outside authentication")
        XCTAssertEqual(server.requests.last?.header("Authorization"), "Bearer t")
    }

    func testPerCallValuesStayWithTheirCall() {
        server.route(.get, "/x", responses: [.status(503), .text("ok")])
        let client = client([Stamper()], policy: RetryPolicy(maxAttempts: 2, delay: .immediate))
        XCTAssertEqual(success(text(client)), "ok")
        XCTAssertEqual(success(text(client)), "ok")
        // each call numbered its own attempts from 1
        XCTAssertEqual(server.requests(to: "/x").map { $0.header("X-Stamp") }, ["1", "2", "1"])
    }

    func testObserversHearEveryAttemptEvenOnesTheRetryPolicyDecidedAndTheCallsEndOnce() {
        server.route(.get, "/x", responses: [.status(503), .status(503), .text("ok")])
        let watcher = Watcher()
        let client = client([watcher], policy: RetryPolicy(maxAttempts: 3, delay: .immediate))
        XCTAssertEqual(success(text(client)), "ok")
        // didReceive saw only what the retry policy let out; attemptDidEnd saw all three
        XCTAssertEqual(watcher.attempts, ["1:503", "2:503", "3:200"])
        XCTAssertEqual(watcher.finished, ["200 after 3"])

        server.route(.get, "/missing", .status(404))
        XCTAssertEqual(failure(text(client, "/missing"))?.code, .unacceptableStatusCode)
        XCTAssertEqual(watcher.finished.last, "unacceptableStatusCode after 1")
    }

    func testObserversHearACancelledAttemptAndACallCancelledWhileHeld() {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 2))
        let watcher = Watcher()
        let client = client([watcher])
        let inFlight = client.rx.request(Text(path: "/slow")).subscribe(onSuccess: { _ in XCTFail("delivered after dispose") })
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests.count == 1 })
        inFlight.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { watcher.finished.count == 1 })
        XCTAssertEqual(watcher.attempts, ["1:cancelled"])
        XCTAssertEqual(watcher.finished, ["cancelled after 1"])

        // held by an interceptor further in: never sent, so no attempt; the call still ends once
        let holder = Holder()
        let holding = self.client([watcher, holder])
        let held = holding.rx.request(Text(path: "/slow")).subscribe(onSuccess: { _ in XCTFail("delivered after dispose") })
        XCTAssertTrue(waitUntil(timeout: 2) { holder.waiting == 1 })
        held.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { watcher.finished.count == 2 })
        XCTAssertEqual(watcher.attempts, ["1:cancelled"])
        XCTAssertEqual(watcher.finished.last, "cancelled after 0")
    }

    func testObserversHearACallRefusedAtItsStart() {
        let watcher = Watcher()
        let client = client([watcher])
        XCTAssertNotNil(result(of: client.shutdown(gracePeriod: 0).andThen(Single.just(()))))
        XCTAssertEqual(failure(text(client))?.code, .shutdown)
        XCTAssertEqual(watcher.prepared, 0)
        XCTAssertEqual(watcher.finished, ["shutdown after 0"])
    }
}

private struct Text: Request {
    typealias Response = String
    let path: String
}

private struct Adapter: HTTPInterceptor {
    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        var adapted = request
        adapted.setValue(String(call.attempt), forHTTPHeaderField: "X-Attempt")
        completion(.proceed(adapted))
        return nil
    }
}

private struct Answerer: HTTPInterceptor {
    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        completion(.answer(HTTPResponse(statusCode: 200, headers: [:], body: Data("from the interceptor".utf8), url: request.url)))
        return nil
    }
}

private struct Refuser: HTTPInterceptor {
    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        completion(.fail(HTTPClientError(.rejected, message: "not now", phase: .notSent)))
        return nil
    }
}

private struct Observer: HTTPInterceptor {
    let see: @Sendable (HTTPTransportRequest) -> Void
    init(_ see: @escaping @Sendable (HTTPTransportRequest) -> Void) { self.see = see }

    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        see(request)
        completion(.proceed(request))
        return nil
    }
}

private struct Verdicts: HTTPInterceptor {
    let decide: @Sendable (Result<HTTPResponse, HTTPClientError>, HTTPCall) -> HTTPInterceptorVerdict
    init(_ decide: @escaping @Sendable (Result<HTTPResponse, HTTPClientError>, HTTPCall) -> HTTPInterceptorVerdict) { self.decide = decide }

    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
        decide(result, call)
    }
}

private final class Counter: HTTPInterceptor {
    private let state = Mutex<(prepared: Int, received: [String])>((0, []))
    var prepared: Int { state.withLock { $0.prepared } }
    var received: [String] { state.withLock { $0.received } }

    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        state.withLock { $0.prepared += 1 }
        completion(.proceed(request))
        return nil
    }

    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
        let label = (try? result.get()).map { String($0.statusCode) } ?? "failure"
        state.withLock { $0.received.append(label) }
        return .proceed
    }
}

private final class Holder: HTTPInterceptor {
    private let state = Mutex<(waiting: [@Sendable () -> Void], cancelled: Int)>(([], 0))
    var waiting: Int { state.withLock { $0.waiting.count } }
    var cancelledHolds: Int { state.withLock { $0.cancelled } }

    func releaseAll() {
        let released = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        released.forEach { $0() }
    }

    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        state.withLock { $0.waiting.append { completion(.proceed(request)) } }
        return Disposables.create { [weak self] in
            self?.state.withLock { state in
                state.waiting = []
                state.cancelled += 1
            }
        }
    }
}

private struct Stamper: HTTPInterceptor {
    static let key = HTTPCallKey<Int>("stamp")

    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        let stamp = (call.value(for: Self.key) ?? 0) + 1
        call.setValue(stamp, for: Self.key)
        var stamped = request
        stamped.setValue(String(stamp), forHTTPHeaderField: "X-Stamp")
        completion(.proceed(stamped))
        return nil
    }
}

/// Records what the observation hooks hear.
private final class Watcher: HTTPInterceptor {
    private let state = Mutex<(prepared: Int, attempts: [String], finished: [String])>((0, [], []))
    var prepared: Int { state.withLock { $0.prepared } }
    var attempts: [String] { state.withLock { $0.attempts } }
    var finished: [String] { state.withLock { $0.finished } }

    func prepare(_ request: HTTPTransportRequest, for call: HTTPCall, completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
        state.withLock { $0.prepared += 1 }
        completion(.proceed(request))
        return nil
    }

    func attemptDidEnd(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) {
        let outcome: String
        switch result {
        case .success(let response): outcome = String(response.statusCode)
        case .failure(let error): outcome = error.statusCode.map(String.init) ?? error.code.rawValue
        }
        state.withLock { $0.attempts.append("\(call.attempt):\(outcome)") }
    }

    func callDidFinish(_ summary: HTTPCallSummary, for call: HTTPCall) {
        let outcome: String
        switch summary.outcome {
        case .success(let status): outcome = String(status)
        case .failure(let error): outcome = error.code.rawValue
        }
        state.withLock { $0.finished.append("\(outcome) after \(summary.attempts)") }
    }
}
