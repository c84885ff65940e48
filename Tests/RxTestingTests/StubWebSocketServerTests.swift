import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// `StubTransport.stubWebSocket(path:)`: a client's `WebSocket` against the stub's server end, in
/// virtual time (one tick is one second) and in real time; every socket is closed before the test
/// ends (`RxTestCase` checks `Resources.total`).
final class StubWebSocketServerTests: RxTestCase {
    /// The messages a real-time subscriber got.
    private final class Received: @unchecked Sendable {
        // @unchecked Sendable: `stored` is only touched under `lock`.
        private let lock = NSLock()
        private var stored: [WebSocketMessage] = []
        func append(_ message: WebSocketMessage) { lock.withLock { stored.append(message) } }
        var messages: [WebSocketMessage] { lock.withLock { stored } }
    }

    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    private func client(_ stub: StubTransport) -> HTTPClient {
        HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 1), callbackScheduler: scheduler, scheduler: scheduler),
            transport: stub
        )
    }

    private func socket(_ client: HTTPClient, path: String = "/feed", protocols: [String] = [], pingInterval: TimeInterval = .infinity) -> WebSocket {
        client.webSocket(
            path: path, protocols: protocols,
            reconnect: ReconnectPolicy(delay: .constant(time: 2), jitter: .none, reconnectsWhenReachable: false),
            options: WebSocketOptions(pingInterval: pingInterval, pongTimeout: 2, closeTimeout: 1, scheduler: scheduler)
        )
    }

    func testMessagesBothWaysThenTheLastDisposeClosesWith1000() {
        let stub = StubTransport(scheduler: scheduler)
        let server = stub.stubWebSocket(path: "/feed", selectedProtocol: "chat")
        let socket = socket(client(stub), protocols: ["chat", "v2"])
        let messages = scheduler.createObserver(WebSocketMessage.self)
        let subscription = socket.messages.subscribe(messages)
        scheduler.advanceTo(1)
        XCTAssertEqual(socket.currentState, .open)
        XCTAssertEqual(socket.selectedProtocol, "chat")
        XCTAssertEqual(stub.sentRequests.first?.value(forHTTPHeaderField: "Upgrade"), "websocket")

        server.send(.text("hello"))
        server.send(.binary(Data([1, 2, 3])))
        _ = socket.send(.text("up")).subscribe()
        scheduler.advanceTo(2)
        XCTAssertEqual(messages.events.compactMap(\.value.element), [.text("hello"), .binary(Data([1, 2, 3]))])
        XCTAssertEqual(server.receivedMessages, [.text("up")])

        subscription.dispose()
        scheduler.advanceTo(3)
        XCTAssertEqual(server.receivedCloseCodes, [.normalClosure])
        XCTAssertFalse(server.isConnected)
        XCTAssertEqual(socket.currentState, .closed(code: .normalClosure, reason: ""))
    }

    func testADropReconnectsAfterThePolicysDelayAndAPeerCloseForGoodFailsTyped() {
        let stub = StubTransport(scheduler: scheduler)
        let server = stub.stubWebSocket(path: "/feed")
        server.echoes = true
        let socket = socket(client(stub))
        let states = scheduler.createObserver(WebSocketState.self)
        let messages = scheduler.createObserver(WebSocketMessage.self)
        let stateSubscription = socket.state.subscribe(states)
        let subscription = socket.messages.subscribe(messages)
        scheduler.advanceTo(1)
        server.drop()
        scheduler.advanceTo(2)
        XCTAssertEqual(socket.currentState, .reconnecting(attempt: 1, after: 2))
        scheduler.advanceTo(5)
        XCTAssertEqual(socket.currentState, .open)
        XCTAssertEqual(server.connectionCount, 2)

        _ = socket.send(.text("echo me")).subscribe()
        scheduler.advanceTo(6)
        XCTAssertEqual(messages.events.compactMap(\.value.element), [.text("echo me")])

        server.close(code: 4001, reason: "bye")
        scheduler.advanceTo(7)
        let error = messages.events.last?.value.error as? HTTPClientError
        XCTAssertEqual(error?.code, .webSocketClosed)
        XCTAssertEqual(error?.webSocketCloseCode, 4001)
        XCTAssertEqual(server.receivedCloseCodes, [4001], "the client answered the close with its code")
        XCTAssertEqual(socket.currentState, .closed(code: 4001, reason: "bye"))
        XCTAssertTrue(states.events.contains { $0.value.element == .reconnecting(attempt: 1, after: 2) })
        subscription.dispose()
        stateSubscription.dispose()
    }

    func testARefusedHandshakeGetsTheHTTPStubsAnswerAndWaitsItsRetryAfter() {
        let stub = StubTransport(scheduler: scheduler)
        let server = stub.stubWebSocket(path: "/feed")
        server.isAccepting = false
        stub.stub(path: "/feed", with: .status(503, headers: ["Retry-After": "7"]))
        let socket = socket(client(stub))
        let subscription = socket.messages.subscribe { _ in }
        scheduler.advanceTo(1)
        XCTAssertEqual(socket.currentState, .reconnecting(attempt: 1, after: 7))
        XCTAssertEqual(server.connectionCount, 0)
        server.isAccepting = true
        scheduler.advanceTo(9)
        XCTAssertEqual(socket.currentState, .open)
        XCTAssertEqual(server.connectionCount, 1)
        subscription.dispose()
        scheduler.advanceTo(10)
    }

    func testAServerThatStopsAnsweringPingsLooksDeadAndIsReplaced() {
        let stub = StubTransport(scheduler: scheduler)
        let server = stub.stubWebSocket(path: "/feed")
        let socket = socket(client(stub), pingInterval: 5)
        let subscription = socket.messages.subscribe { _ in }
        scheduler.advanceTo(12)
        XCTAssertEqual(socket.currentState, .open, "pings at 5 and 10 were answered")
        server.answersPings = false
        // Ping at 15, no pong by 17: dead; reconnect after 2 s.
        scheduler.advanceTo(18)
        XCTAssertEqual(socket.currentState, .reconnecting(attempt: 1, after: 2))
        server.answersPings = true
        scheduler.advanceTo(20)
        XCTAssertEqual(socket.currentState, .open)
        XCTAssertEqual(server.connectionCount, 2)
        subscription.dispose()
        scheduler.advanceTo(21)
    }

    func testInRealTimeWithoutAScheduler() throws {
        let stub = StubTransport()
        let server = stub.stubWebSocket(path: "/echo")
        server.echoes = true
        let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: stub)
        let socket = client.webSocket(path: "/echo", options: WebSocketOptions(pingInterval: .infinity))
        let received = Received()
        let subscription = socket.messages.subscribe(onNext: { received.append($0) })
        _ = socket.send(.binary(Data(repeating: 7, count: 100_000))).subscribe()
        XCTAssertTrue(waitUntil(timeout: 2) { received.messages.count == 1 })
        XCTAssertEqual(received.messages, [.binary(Data(repeating: 7, count: 100_000))])
        subscription.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { !server.isConnected && server.receivedCloseCodes == [.normalClosure] })
    }
}

extension StubWebSocketServerTests {
    /// The example of the article "Testing your client" (RxTesting.docc), as written there
    /// (default reachability on).
    func testTheReadmeExample() {
        let stub = StubTransport(scheduler: scheduler)
        let server = stub.stubWebSocket(path: "/feed")
        let client = HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            configuration: .init(callbackScheduler: scheduler, scheduler: scheduler),
            transport: stub)
        let socket = client.webSocket(path: "/feed", reconnect: ReconnectPolicy(delay: .constant(time: 2), jitter: .none),
                                      options: WebSocketOptions(scheduler: scheduler))
        let messages = scheduler.createObserver(WebSocketMessage.self)
        let subscription = socket.messages.subscribe(messages)
        scheduler.advanceTo(1)
        XCTAssertEqual(socket.currentState, .open)
        server.send(.text("hello"))
        server.drop()
        scheduler.advanceTo(10)
        XCTAssertEqual(messages.events.first?.time, 1)
        XCTAssertEqual(messages.events.first?.value.element, .text("hello"))
        XCTAssertEqual(server.connectionCount, 2)
        subscription.dispose()
        scheduler.advanceTo(11)
        XCTAssertEqual(server.receivedCloseCodes, [.normalClosure])
    }
}
