import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// `shutdown(gracePeriod:)`: new work refused, waiting and held requests stopped, in-flight requests
/// finished or cancelled at the grace period's end, one terminal event each, harmless twice.
final class ShutdownTests: LoopbackClientTestCase {
    /// Runs the grace period in virtual time; the requests themselves are real.
    private let grace = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    private func client(_ policy: RetryPolicy = .none) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: policy))
    }

    /// Subscribes and returns a box that collects every terminal event.
    private func start(_ single: Single<String>) -> (events: ResultBox<String>, subscription: Disposable) {
        let box = ResultBox<String>()
        let subscription = single.subscribe(onSuccess: { box.set(.success($0)) },
                                            onFailure: { box.set(.failure($0 as? HTTPClientError ?? HTTPClientError(.transport))) })
        return (box, subscription)
    }

    private func completed(_ completable: Completable) -> LockedBox<Int> {
        let count = LockedBox(0)
        _ = completable.subscribe { event in
            if case .completed = event { count.mutate { $0 += 1 } }
        }
        return count
    }

    func testNewRequestsFailAtOnceWithShutdown() {
        server.route(.get, "/x", .text("x"))
        let client = client()
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        let error = failure(result(of: client.rx.request(RawText(path: "/x"))))
        XCTAssertEqual(error?.code, .shutdown)
        XCTAssertEqual(error?.phase, .notSent)
        XCTAssertEqual(server.requests.count, 0)
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 })
        XCTAssertTrue(client.isShutdownStarted)
    }

    func testInFlightRequestsFinishNormallyWithinTheGracePeriod() {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("finished").delayed(by: 0.2))
        let client = client()
        let call = start(client.rx.request(RawText(path: "/slow")))
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/slow").count == 1 })
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        XCTAssertEqual(done.value, 0, "completed while a request was in flight")
        XCTAssertTrue(waitUntil(timeout: 3) { call.events.deliveries == 1 })
        XCTAssertEqual(success(call.events.value), "finished")
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 })
        call.subscription.dispose()
    }

    func testInFlightRequestsAreCancelledWhenTheGracePeriodEnds() {
        server.route(.get, "/stuck", LoopbackHTTPResponse.text("late").delayed(by: 3))
        let client = client()
        let call = start(client.rx.request(RawText(path: "/stuck")))
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/stuck").count == 1 })
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        grace.advanceTo(9)
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(call.events.deliveries, 0, "cancelled before the grace period ended")
        grace.advanceTo(10)
        XCTAssertTrue(waitUntil(timeout: 2) { call.events.deliveries == 1 })
        let error = failure(call.events.value)
        XCTAssertEqual(error?.code, .shutdown)
        XCTAssertEqual(error?.phase, .sentWithoutResponse)
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 })
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(call.events.deliveries, 1)
        call.subscription.dispose()
    }

    func testRequestsWaitingToRetryStopWithShutdown() {
        server.route(.get, "/flaky", .status(503))
        let client = client(RetryPolicy(maxAttempts: 5, delay: .constant(time: 60), retriesWhenReachable: false))
        let call = start(client.rx.request(RawText(path: "/flaky")))
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/flaky").count == 1 })
        // The first failure has been processed once the call waits; give the callback queue a moment.
        Thread.sleep(forTimeInterval: 0.05)
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        XCTAssertTrue(waitUntil(timeout: 2) { call.events.deliveries == 1 })
        let error = failure(call.events.value)
        XCTAssertEqual(error?.code, .shutdown)
        XCTAssertEqual((error?.underlying as? HTTPClientError)?.statusCode, 503)
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 })
        XCTAssertEqual(server.requests(to: "/flaky").count, 1)
        call.subscription.dispose()
    }

    func testHeldRequestsFailWithShutdown() {
        server.route(.get, "/x", .text("x"))
        let client = client()
        client.suspend()
        let call = start(client.rx.request(RawText(path: "/x")))
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        XCTAssertTrue(waitUntil(timeout: 2) { call.events.deliveries == 1 })
        XCTAssertEqual(failure(call.events.value)?.code, .shutdown)
        XCTAssertEqual(failure(call.events.value)?.phase, .notSent)
        client.resume()
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 })
        XCTAssertEqual(server.requests.count, 0)
        call.subscription.dispose()
    }

    func testAFailureInFlightDuringShutdownIsNotRetried() {
        server.route(.get, "/flaky", LoopbackHTTPResponse.status(503).delayed(by: 0.15))
        let client = client(RetryPolicy(maxAttempts: 5, delay: .immediate, retriesWhenReachable: false))
        let call = start(client.rx.request(RawText(path: "/flaky")))
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/flaky").count == 1 })
        client.shutdown(gracePeriod: 10, scheduler: grace)
        XCTAssertTrue(waitUntil(timeout: 2) { call.events.deliveries == 1 })
        XCTAssertEqual(failure(call.events.value)?.code, .shutdown)
        XCTAssertEqual(server.requests(to: "/flaky").count, 1)
        call.subscription.dispose()
    }

    func testShuttingDownTwiceIsHarmlessAndBothComplete() {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("ok").delayed(by: 0.1))
        let client = client()
        let call = start(client.rx.request(RawText(path: "/slow")))
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/slow").count == 1 })
        let first = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        let second = completed(client.shutdown(gracePeriod: 0, scheduler: grace))
        grace.advanceTo(1)
        XCTAssertTrue(waitUntil(timeout: 3) { first.value == 1 && second.value == 1 })
        XCTAssertEqual(success(call.events.value), "ok", "the second call's zero grace period cancelled the request")
        XCTAssertEqual(completed(client.shutdown()).value, 1, "a shutdown that is over completes at once")
        call.subscription.dispose()
    }

    func testAnIdleClientShutsDownAtOnce() {
        let client = client()
        XCTAssertTrue(waitUntil(timeout: 2) { self.completed(client.shutdown(gracePeriod: 5, scheduler: self.grace)).value == 1 })
    }

    func testAGivenTransportIsShutDownOnlyWhenItSaysItBelongsToTheClient() {
        let kept = ShutdownCountingTransport(shutsDownWithClient: false)
        let handedOver = ShutdownCountingTransport(shutsDownWithClient: true)
        for transport in [kept, handedOver] {
            let client = HTTPClient(baseURL: server.baseURL, transport: transport)
            XCTAssertTrue(waitUntil(timeout: 2) { self.completed(client.shutdown(gracePeriod: 0, scheduler: self.grace)).value == 1 })
        }
        XCTAssertEqual(kept.shutdowns.value, 0, "a transport given to the client stays the caller's")
        XCTAssertEqual(handedOver.shutdowns.value, 1)
    }

    /// An event stream never ends by itself: a shutdown ends it at once, after the events already
    /// received, and the stream completes — the shutdown does not wait out its grace period.
    func testAnEventStreamEndsAtOnceAndCompletesOnShutdown() {
        server.route(.get, "/events", .eventStream([.text("id: 1\ndata: one\n\n"), .pause(5)]))
        let client = client()
        let collected = StreamingTests.Collected<ServerSentEvent>()
        let subscription = client.rx.serverSentEvents(path: "/events", reconnect: ReconnectPolicy(delay: .constant(time: 0.01)))
            .subscribe(onNext: { collected.append($0) }, onError: { collected.end($0) }, onCompleted: { collected.end(nil) })
        XCTAssertTrue(waitUntil(timeout: 3) { collected.elements.count == 1 })
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 }, "the shutdown waited for the event stream")
        XCTAssertTrue(waitUntil(timeout: 2) { collected.ended })
        XCTAssertNil(collected.error)
        XCTAssertEqual(collected.elements.map(\.data), ["one"])
        XCTAssertEqual(server.requests(to: "/events").count, 1, "reconnected during the shutdown")
        subscription.dispose()
    }

    /// An event stream waiting to reconnect when the shutdown begins stops waiting and completes at
    /// once: it does not hold the shutdown up, nor fail with `.shutdown` whenever its wait ends.
    func testAnEventStreamWaitingToReconnectCompletesAtOnceOnShutdown() {
        server.route(.get, "/events", .status(503))
        let client = client()
        // The wait runs in virtual time that never advances: only the shutdown can end it.
        let options = StreamOptions(idleTimeout: .infinity, scheduler: grace)
        let reconnect = ReconnectPolicy(delay: .constant(time: 30), reconnectsWhenReachable: false)
        let collected = StreamingTests.Collected<ServerSentEvent>()
        let subscription = client.rx.serverSentEvents(path: "/events", options: options, reconnect: reconnect)
            .subscribe(onNext: { collected.append($0) }, onError: { collected.end($0) }, onCompleted: { collected.end(nil) })
        XCTAssertTrue(waitUntil(timeout: 3) { self.server.requests(to: "/events").count == 1 })
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertFalse(collected.ended, "the 503 ended the stream instead of a wait")
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        XCTAssertTrue(waitUntil(timeout: 2) { collected.ended }, "the stream still waits to reconnect")
        XCTAssertNil(collected.error)
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 })
        grace.advanceTo(60)
        XCTAssertEqual(server.requests(to: "/events").count, 1, "reconnected during the shutdown")
        subscription.dispose()
    }

    /// A stream subscribed while the client shuts down has nothing to wait for: it fails with
    /// `.shutdown` at once, as any new request does.
    func testAnEventStreamSubscribedDuringShutdownFailsWithShutdown() {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("ok").delayed(by: 0.3))
        let client = client()
        let inFlight = start(client.rx.request(RawText(path: "/slow")))
        Thread.sleep(forTimeInterval: 0.05)
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        let collected = StreamingTests.Collected<ServerSentEvent>()
        let subscription = client.rx.serverSentEvents(path: "/events", options: StreamOptions(scheduler: grace))
            .subscribe(onNext: { collected.append($0) }, onError: { collected.end($0) }, onCompleted: { collected.end(nil) })
        XCTAssertTrue(waitUntil(timeout: 2) { collected.ended })
        XCTAssertEqual((collected.error as? HTTPClientError)?.code, .shutdown)
        XCTAssertTrue(waitUntil(timeout: 3) { done.value == 1 })
        XCTAssertEqual(inFlight.events.deliveries, 1)
        subscription.dispose()
        inFlight.subscription.dispose()
    }

    /// A download ends by itself: it keeps its grace period like any request in flight.
    func testAByteStreamInFlightFinishesWithinTheGracePeriod() {
        server.route(.get, "/download", .stream([.text("first,"), .pause(0.2), .text("second")]))
        let client = client()
        let collected = StreamingTests.Collected<Data>()
        let subscription = client.rx.stream(RawText(path: "/download"))
            .subscribe(onNext: { collected.append($0) }, onError: { collected.end($0) }, onCompleted: { collected.end(nil) })
        XCTAssertTrue(waitUntil(timeout: 2) { !collected.elements.isEmpty })
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        XCTAssertTrue(waitUntil(timeout: 3) { collected.ended })
        XCTAssertNil(collected.error)
        XCTAssertEqual(String(decoding: collected.elements.reduce(Data(), +), as: UTF8.self), "first,second")
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 })
        subscription.dispose()
    }

    func testEverySubscriberGetsExactlyOneTerminalEvent() {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("ok").delayed(by: 0.3))
        server.route(.get, "/flaky", .status(503))
        let client = client(RetryPolicy(maxAttempts: 9, delay: .constant(time: 30), retriesWhenReachable: false))
        var calls: [(events: ResultBox<String>, subscription: Disposable)] = []
        for index in 0..<30 {
            calls.append(start(client.rx.request(RawText(path: index % 2 == 0 ? "/slow" : "/flaky"))))
        }
        Thread.sleep(forTimeInterval: 0.1)
        let done = completed(client.shutdown(gracePeriod: 10, scheduler: grace))
        for index in 0..<5 {
            calls.append(start(client.rx.request(RawText(path: "/slow?late=\(index)"))))
        }
        grace.advanceTo(10)
        XCTAssertTrue(waitUntil(timeout: 3) { calls.allSatisfy { $0.events.deliveries >= 1 } })
        XCTAssertTrue(waitUntil(timeout: 2) { done.value == 1 })
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(calls.map { $0.events.deliveries }, Array(repeating: 1, count: calls.count))
        calls.forEach { $0.subscription.dispose() }
    }
}

/// A transport that answers nothing and counts its shutdowns.
private final class ShutdownCountingTransport: HTTPTransport {
    let shutsDownWithClient: Bool
    let shutdowns = LockedBox(0)

    init(shutsDownWithClient: Bool) {
        self.shutsDownWithClient = shutsDownWithClient
    }

    func send(_ request: HTTPTransportRequest, options: HTTPTransportOptions, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Disposable {
        Disposables.create()
    }

    func shutdown() {
        shutdowns.mutate { $0 += 1 }
    }
}
