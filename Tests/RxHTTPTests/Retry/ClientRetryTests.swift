import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// Retries applied by the client, through URLSession to the loopback server.
final class ClientRetryTests: LoopbackClientTestCase {
    private func client(_ policy: RetryPolicy, probeInterval: TimeInterval = 5, scheduler: (any SchedulerType)? = nil) -> HTTPClient {
        HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: 5, retryPolicy: policy, reachabilityProbeInterval: probeInterval, scheduler: scheduler)
        )
    }

    private let user = #"{"id":1,"name":"Ada"}"#

    func testTransientFailuresAreRetriedUntilASuccess() {
        server.route(.get, "/users/1", responses: [.status(503), .status(502), .json(user)])
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.02)))
        let result = result { client.requestObject(path: "/users/1", completion: $0) } as Result<User, HTTPClientError>?
        XCTAssertEqual(success(result), User(id: 1, name: "Ada"))
        XCTAssertEqual(server.requests(to: "/users/1").count, 3)
    }

    func testTheLastFailureIsDeliveredWhenAttemptsRunOut() {
        server.route(.get, "/flaky", responses: [.status(503), .status(500)])
        let client = client(RetryPolicy(maxAttempts: 2, delay: .constant(time: 0.02)))
        let error = failure(result { client.requestObject(path: "/flaky", completion: $0) } as Result<User, HTTPClientError>?)
        XCTAssertEqual(error?.statusCode, 500)
        XCTAssertEqual(server.requests(to: "/flaky").count, 2)
    }

    func testAPostIsNotRetriedByDefault() {
        server.route(.post, "/orders", responses: [.status(503), .json(user)])
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.02)))
        let error = failure(result {
            client.requestObject(path: "/orders", method: .post, parameters: ["sku": "x"], completion: $0)
        } as Result<User, HTTPClientError>?)
        XCTAssertEqual(error?.statusCode, 503)
        XCTAssertEqual(server.requests(to: "/orders").count, 1)
    }

    func testAPermanentFailureIsNotRetried() {
        server.route(.get, "/missing", .status(404))
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.02)))
        let error = failure(result { client.requestObject(path: "/missing", completion: $0) } as Result<User, HTTPClientError>?)
        XCTAssertEqual(error?.code, .unacceptableStatusCode)
        XCTAssertEqual(server.requests(to: "/missing").count, 1)
    }

    func testTheReactiveFormRetriesToo() {
        server.route(.get, "/users/1", responses: [.status(503), .json(user)])
        let client = client(RetryPolicy(maxAttempts: 2, delay: .constant(time: 0.02)))
        let single: Single<User> = client.rx.requestObject(path: "/users/1")
        XCTAssertEqual(success(result(of: single)), User(id: 1, name: "Ada"))
        XCTAssertEqual(server.requests(to: "/users/1").count, 2)
    }

    func testARetryableRequestBringsItsOwnPolicy() {
        struct GetUser: RetryableRequest {
            typealias Response = User
            var path: String { "/users/1" }
            var retryPolicy: RetryPolicy { RetryPolicy(maxAttempts: 2, delay: .constant(time: 0.02)) }
        }
        server.route(.get, "/users/1", responses: [.status(503), .json(user)])
        let client = client(.none)
        XCTAssertEqual(success(result { client.request(GetUser(), completion: $0) }), User(id: 1, name: "Ada"))
        XCTAssertEqual(server.requests(to: "/users/1").count, 2)
    }

    /// One name, one meaning: a plain `Request` that states a retry policy gets it (it used to be
    /// read from `RetryableRequest`s only, and silently ignored here).
    func testAPlainRequestThatStatesAPolicyGetsIt() {
        struct GetUser: Request {
            typealias Response = User
            var path: String { "/users/1" }
            var retryPolicy: RetryPolicy { RetryPolicy(maxAttempts: 2, delay: .constant(time: 0.02)) }
        }
        server.route(.get, "/users/1", responses: [.status(503), .json(user)])
        let client = client(.none)
        XCTAssertEqual(success(result { client.request(GetUser(), completion: $0) }), User(id: 1, name: "Ada"))
        XCTAssertEqual(server.requests(to: "/users/1").count, 2)
    }

    func testARequestThatStatesNoPolicyIsRetriedAsItsClientSays() {
        struct GetUser: Request {
            typealias Response = User
            var path: String { "/users/1" }
        }
        XCTAssertTrue(GetUser().retryPolicy.resolved(client: .none).maxAttempts == 1)
        server.route(.get, "/users/1", responses: [.status(503), .status(503), .json(user)])
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.02)))
        XCTAssertEqual(success(result { client.request(GetUser(), completion: $0) }), User(id: 1, name: "Ada"))
        XCTAssertEqual(server.requests(to: "/users/1").count, 3)
        // A changed copy of `.client` is a policy of its own.
        var own = RetryPolicy.client
        own.maxAttempts = 4
        XCTAssertEqual(own.resolved(client: .none).maxAttempts, 4)
    }

    func testTheModelsTypeCanBeSpelledOut() {
        server.route(.get, "/users/1", .json(user))
        let client = client(.none)
        XCTAssertEqual(success(result(of: client.rx.requestObject(User.self, path: "/users/1"))), User(id: 1, name: "Ada"))
        XCTAssertEqual(success(result { client.requestObject(User.self, path: "/users/1", completion: $0) }), User(id: 1, name: "Ada"))
    }

    func testRetryAfterIsHonouredInVirtualTime() throws {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1, simulateProcessingDelay: false)
        server.route(.get, "/limited", responses: [.status(429).withHeader("Retry-After", "3"), .json(user)])
        let client = client(RetryPolicy(maxAttempts: 2, delay: .constant(time: 0.5), retriesWhenReachable: false), scheduler: scheduler)
        let box = ResultBox<User>()
        let done = expectation(description: "completion")
        _ = client.requestObject(path: "/limited") { (result: Result<User, HTTPClientError>) in
            box.set(result)
            done.fulfill()
        }
        _ = server.waitForRequests(count: 1)
        try waitUntil { !scheduler.isIdle }
        scheduler.advance(by: 29)
        XCTAssertEqual(server.requests(to: "/limited").count, 1, "2.9 s into a 3 s Retry-After: no retry yet")
        scheduler.advance(by: 1)
        wait(for: [done], timeout: 5)
        XCTAssertEqual(success(box.value), User(id: 1, name: "Ada"))
        XCTAssertEqual(server.requests(to: "/limited").count, 2)
    }

    func testTheDeadlineBoundsAllAttemptsAndCancelsTheOneInFlight() throws {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1, simulateProcessingDelay: false)
        server.route(.get, "/slow", .json(user).delayed(by: 3))
        let client = client(RetryPolicy(maxAttempts: 5, delay: .constant(time: 1), deadline: 2), scheduler: scheduler)
        let box = ResultBox<User>()
        let done = expectation(description: "completion")
        _ = client.requestObject(path: "/slow") { (result: Result<User, HTTPClientError>) in
            box.set(result)
            done.fulfill()
        }
        _ = server.waitForRequests(count: 1)
        scheduler.advance(by: 20)
        wait(for: [done], timeout: 2)
        let error = failure(box.value)
        XCTAssertEqual(error?.code, .timedOut)
        XCTAssertTrue(error?.message?.contains("deadline") ?? false, "\(String(describing: error))")
        XCTAssertEqual(box.deliveries, 1)
    }

    func testCancellingWhileWaitingDeliversCancelledOnceAndSendsNothingMore() throws {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1, simulateProcessingDelay: false)
        server.route(.get, "/down", .status(503))
        let client = client(RetryPolicy(maxAttempts: 3, delay: .constant(time: 10), retriesWhenReachable: false), scheduler: scheduler)
        let box = ResultBox<User>()
        let done = expectation(description: "completion")
        let handle = client.requestObject(path: "/down") { (result: Result<User, HTTPClientError>) in
            box.set(result)
            done.fulfill()
        }
        _ = server.waitForRequests(count: 1)
        try waitUntil { !scheduler.isIdle }
        handle.cancel()
        handle.cancel()
        wait(for: [done], timeout: 2)
        XCTAssertEqual(failure(box.value)?.code, .cancelled)
        XCTAssertTrue(handle.isCancelled)
        XCTAssertTrue(scheduler.isIdle, "the wait's timer was cancelled")
        scheduler.advance(by: 200)
        XCTAssertEqual(server.requests(to: "/down").count, 1)
        XCTAssertEqual(box.deliveries, 1)
    }

    /// Polls `condition` for up to two seconds.
    private func waitUntil(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(2)
        while !condition() {
            guard Date() < deadline else {
                XCTFail("condition not met in time", file: file, line: line)
                return
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}
