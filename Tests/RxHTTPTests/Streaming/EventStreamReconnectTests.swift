import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// A Server-Sent Events stream's reconnects in virtual time (one tick is one second): a
/// `StubTransport` answers each connection with a whole event stream, then the connection ends.
final class EventStreamReconnectTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    private lazy var stub = StubTransport(scheduler: scheduler)

    private func client() -> HTTPClient {
        HTTPClient(baseURL: URL(string: "https://api.test")!,
                   configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 1), callbackScheduler: scheduler, scheduler: scheduler),
                   transport: stub)
    }

    /// Answers successive connections with `bodies` (the last repeating), recording when each came.
    private func script(_ bodies: [String], delay: RxTimeInterval = .seconds(1)) {
        let queue = LockedBox(bodies)
        let scheduler = self.scheduler
        let connections = self.connections
        stub.stub(where: { $0.url?.path == "/events" }, respond: { _ in
            connections.mutate { $0.append(scheduler.clock) }
            let body = queue.mutate { $0.count > 1 ? $0.removeFirst() : $0[0] }
            return .status(200, body: Data(body.utf8), headers: ["Content-Type": "text/event-stream"], delay: delay)
        })
    }

    private var options: StreamOptions { StreamOptions(idleTimeout: .infinity, scheduler: scheduler) }

    func testReconnectsWaitThePolicysDelayThenTheServersRetry() {
        script(["id: 1\ndata: a\n\n", "retry: 7000\nid: 2\ndata: b\n\n", "id: 3\ndata: c\n\n"])
        let reconnect = ReconnectPolicy(delay: .constant(time: 4), jitter: .none, reconnectsWhenReachable: false)
        let observer = scheduler.start(disposed: 230) {
            self.client().rx.serverSentEvents(path: "/events", options: self.options, reconnect: reconnect)
        }
        // Connect at 200, answered at 201; wait 4: 205, answered 206 with retry 7 s, which holds
        // from then on: 213, answered 214; 221, answered 222.
        XCTAssertEqual(observer.events.map(\.time), [201, 206, 214, 222])
        XCTAssertEqual(observer.events.compactMap { $0.value.element?.data }, ["a", "b", "c", "c"])
        XCTAssertEqual(stub.sentRequests.map { $0.value(forHTTPHeaderField: "Last-Event-ID") }, [nil, "1", "2", "3", "3"])
        XCTAssertTrue(stub.sentRequests.allSatisfy { $0.value(forHTTPHeaderField: "Accept") == "text/event-stream" })
    }

    func testBackoffGrowsWhileConnectionsBringNothingAndResetsAfterAnEvent() {
        script([": nothing\n\n", ": nothing\n\n", "data: x\n\n", ": nothing\n\n"], delay: .zero)
        let reconnect = ReconnectPolicy(delay: .exponential(initial: 1, multiplier: 2, maxDelay: 60), jitter: .none, reconnectsWhenReachable: false)
        _ = scheduler.start(disposed: 215) {
            self.client().rx.serverSentEvents(path: "/events", options: self.options, reconnect: reconnect)
        }
        // 200 (nothing) wait 1 → 201 (nothing) wait 2 → 203 (event) wait 1 → 204 (nothing) wait 2 → 206 …
        XCTAssertEqual(Array(connectionTimes().prefix(5)), [200, 201, 203, 204, 206])
    }

    private let connections = LockedBox([TestTime]())

    private func connectionTimes() -> [TestTime] { connections.value }

    func testMaxReconnectsAfterCleanEndsCompletesTheStream() {
        script(["data: only\n\n"], delay: .zero)
        let reconnect = ReconnectPolicy(delay: .constant(time: 1), jitter: .none, maxReconnects: 0, reconnectsWhenReachable: false)
        let observer = scheduler.start {
            self.client().rx.serverSentEvents(path: "/events", options: self.options, reconnect: reconnect)
        }
        XCTAssertEqual(observer.events.count, 2)
        XCTAssertEqual(observer.events.last?.value.isCompleted, true)
    }

    func testTheDeadlineStopsReconnecting() {
        script(["data: x\n\n"], delay: .zero)
        let reconnect = ReconnectPolicy(delay: .constant(time: 10), jitter: .none, deadline: 25, reconnectsWhenReachable: false)
        let observer = scheduler.start {
            self.client().rx.serverSentEvents(path: "/events", options: self.options, reconnect: reconnect)
        }
        // Connections at 200, 210, 220; the next wait would end at 230, past the deadline of 225.
        XCTAssertEqual(observer.events.compactMap { $0.value.element == nil ? nil : $0.time }, [200, 210, 220])
        XCTAssertEqual(observer.events.last?.time, 220)
        XCTAssertEqual(observer.events.last?.value.isCompleted, true)
    }

    /// The client's own refusal (an open circuit) is "not now", not "never": the stream waits until
    /// the circuit's trial and connects again.
    func testAnOpenCircuitDelaysTheReconnectInsteadOfEndingTheStream() {
        let answers = LockedBox([503, 503, 200])
        let scheduler = self.scheduler
        let connections = self.connections
        stub.stub(where: { $0.url?.path == "/events" }, respond: { _ in
            connections.mutate { $0.append(scheduler.clock) }
            let status = answers.mutate { $0.count > 1 ? $0.removeFirst() : $0[0] }
            return .status(status, body: Data((status == 200 ? "data: back\n\n" : "down").utf8),
                           headers: ["Content-Type": status == 200 ? "text/event-stream" : "text/plain"], delay: .zero)
        })
        let protection = HostProtection(circuitBreaker: CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 2, window: 10, breakDuration: 30))
        let client = HTTPClient(baseURL: URL(string: "https://api.test")!,
                                configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 1), callbackScheduler: scheduler,
                                                     hostProtection: protection, scheduler: scheduler),
                                transport: stub)
        let reconnect = ReconnectPolicy(delay: .constant(time: 1), jitter: .none, reconnectsWhenReachable: false)
        let observer = scheduler.start(disposed: 240) {
            client.rx.serverSentEvents(path: "/events", options: self.options, reconnect: reconnect)
        }
        // 503 at 200 and 201 open the circuit until 231; the attempt at 202 is refused without
        // reaching the server and waits the circuit's 29 s, not the policy's 1 s.
        XCTAssertEqual(connectionTimes(), [200, 201, 231, 232, 233, 234, 235, 236, 237, 238, 239])
        XCTAssertEqual(observer.events.first?.time, 231)
        XCTAssertEqual(observer.events.first?.value.element?.data, "back")
        XCTAssertFalse(observer.events.contains { $0.value.error != nil })
    }
}

private extension Event {
    var isCompleted: Bool {
        if case .completed = self { return true }
        return false
    }
}
