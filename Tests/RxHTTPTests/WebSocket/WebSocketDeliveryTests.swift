import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// Where a `WebSocket` delivers: after a hop to the client's callback context (by default), or at
/// once on the thread that produced the event (`deliversOnConnectionThread`). The connection runs
/// on one `TestScheduler`, the client's callbacks on another that moves only when the test says
/// (the opening handshake is a call of the client: its answer comes through the callbacks).
final class WebSocketDeliveryTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    private let callbacks = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    /// A socket of a client on a stub whose `/feed` is a WebSocket server; `inline`:
    /// `deliversOnConnectionThread`.
    private func socket(inline: Bool) -> (WebSocket, StubWebSocketServer) {
        let stub = StubTransport(scheduler: scheduler)
        let server = stub.stubWebSocket(path: "/feed")
        let client = HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 1), callbackScheduler: callbacks, scheduler: scheduler),
            transport: stub
        )
        let socket = client.webSocket(
            path: "/feed", reconnect: .never,
            options: WebSocketOptions(pingInterval: .infinity, closeTimeout: 1, deliversOnConnectionThread: inline, scheduler: scheduler)
        )
        return (socket, server)
    }

    /// Runs the opening handshake: the connection's scheduler, then the callbacks (its answer).
    private func open(_ socket: WebSocket) {
        scheduler.advanceTo(1)
        callbacks.advanceTo(1)
        scheduler.advanceTo(2)
        XCTAssertEqual(socket.currentState, .open)
    }

    func testByDefaultMessagesWaitForTheCallbackContext() {
        let (socket, server) = socket(inline: false)
        let messages = scheduler.createObserver(WebSocketMessage.self)
        let subscription = socket.messages.subscribe(messages)
        open(socket)
        server.send(.text("one"))
        server.send(.text("two"))
        scheduler.advanceTo(3)
        XCTAssertTrue(messages.events.isEmpty, "delivered before the callback context ran")
        callbacks.advanceTo(2)
        XCTAssertEqual(messages.events.compactMap(\.value.element), [.text("one"), .text("two")])
        subscription.dispose()
        scheduler.advanceTo(4)
        callbacks.advanceTo(3)
    }

    func testOnTheConnectionThreadMessagesStatesAndTheEndArriveAtOnceInOrder() {
        let (socket, server) = socket(inline: true)
        let states = scheduler.createObserver(WebSocketState.self)
        let stateSubscription = socket.state.subscribe(states)
        let messages = scheduler.createObserver(WebSocketMessage.self)
        let subscription = socket.messages.subscribe(messages)
        open(socket)
        for index in 0..<100 {
            server.send(.text("m\(index)"))
        }
        server.close(code: .normalClosure, reason: "done")
        scheduler.advanceTo(3)
        // The callback scheduler did not run again: all of it came on the connection's scheduler.
        XCTAssertEqual(callbacks.clock, 1)
        XCTAssertEqual(messages.events.compactMap(\.value.element), (0..<100).map { .text("m\($0)") })
        XCTAssertEqual(messages.events.last.map { $0.value.isCompleted }, true)
        XCTAssertEqual(states.events.compactMap(\.value.element), [.idle, .connecting, .open, .closed(code: .normalClosure, reason: "done")])
        subscription.dispose()
        stateSubscription.dispose()
    }

    /// A subscriber that closes the socket from `onNext` is told of the close after that `onNext`
    /// returns, and nothing is delivered twice or out of order.
    func testClosingFromOnNextEndsAfterThatMessage() {
        let (socket, server) = socket(inline: true)
        let log = LockedLog()
        let subscription = socket.messages.subscribe(
            onNext: { message in
                log.append("next \(message)")
                if message == .text("last") {
                    socket.close(code: .goingAway, reason: "enough")
                    log.append("close returned")
                }
            },
            onError: { log.append("error \($0)") },
            onCompleted: { log.append("completed") }
        )
        open(socket)
        server.send(.text("first"))
        server.send(.text("last"))
        server.send(.text("after the close"))
        scheduler.advanceTo(6)
        XCTAssertEqual(log.entries, ["next text(\"first\")", "next text(\"last\")", "close returned", "completed"])
        XCTAssertEqual(server.receivedCloseCodes, [.goingAway])
        subscription.dispose()
    }
}

/// Lines written by callbacks, read by the test.
private final class LockedLog: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: [String] = []
    func append(_ entry: String) { lock.withLock { stored.append(entry) } }
    var entries: [String] { lock.withLock { stored } }
}
