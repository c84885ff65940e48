import Foundation
@_spi(RxNetworkKitInternals) import RxCore
import RxHTTP

/// The server end of the WebSockets a `StubTransport` accepts (`stub.stubWebSocket(path:)`): unit
/// tests of code built on `client.webSocket(...)` with no server, no socket and no trait, in
/// virtual time when the stub has a `TestScheduler`.
///
/// It speaks the protocol for real: it answers the handshake with a 101 whose
/// `Sec-WebSocket-Accept` matches the client's key, reads the client's masked frames (recording
/// the messages, answering pings, closing when the client closes) and frames what it sends. One
/// connection at a time is open; after `drop()` or a close, the client's reconnect opens the next
/// one (`connectionCount`).
///
/// Everything it sends reaches the client in order: on the stub's scheduler (run it to deliver:
/// `testScheduler.advanceTo(...)`), or on a serial queue without one.
///
/// ```swift
/// let stub = StubTransport(scheduler: testScheduler)
/// let server = stub.stubWebSocket(path: "/feed")
/// let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: stub)
/// // subscribe to client.webSocket(path: "/feed").messages, then:
/// server.send(.text("hello"))
/// server.close(code: .goingAway)   // the client reconnects (1001)
/// ```
///
/// - Note: Thread-safe.
public final class StubWebSocketServer: Sendable {
    private struct State {
        var connection: StubUpgradedConnection?
        var connectionCount = 0
        var received: [WebSocketMessage] = []
        var closeCodes: [WebSocketCloseCode?] = []
        var answersPings = true
        var echoes = false
        var isAccepting = true
    }

    /// The subprotocol the handshake's answer selects, if any (it must be one the client offered).
    public let selectedProtocol: String?
    private let delivery: StubDelivery
    private let state = LockedState<State>.make(State())

    init(selectedProtocol: String?, scheduler: (any SchedulerType)?) {
        self.selectedProtocol = selectedProtocol
        self.delivery = StubDelivery(scheduler: scheduler)
    }

    // MARK: What the server does

    /// Sends `message` on the open connection; nothing if none is open.
    public func send(_ message: WebSocketMessage) {
        let frame = switch message {
        case .text(let text): WebSocketFrame(opcode: .text, payload: Data(text.utf8))
        case .binary(let data): WebSocketFrame(opcode: .binary, payload: data)
        }
        state.withLock { $0.connection }?.deliver(frame)
    }

    /// Begins the closing handshake with `code` and `reason` (cut to fit a control frame); the
    /// connection ends when the client answers. Nothing if no connection is open.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        state.withLock { $0.connection }?.serverCloses(code: code, reason: reason)
    }

    /// Ends the open connection without a close frame, as a lost TCP connection does (the client
    /// sees 1006 and reconnects per its policy).
    public func drop() {
        state.withLock { state -> StubUpgradedConnection? in
            defer { state.connection = nil }
            return state.connection
        }?.end(error: HTTPClientError(.transport, message: "the stub dropped the connection", phase: .sentWithoutResponse))
    }

    /// Whether the server answers the client's pings (default true); false makes the connection
    /// look half-open, so that the client's pong time-out ends it.
    public var answersPings: Bool {
        get { state.withLock { $0.answersPings } }
        set { state.withLock { $0.answersPings = newValue } }
    }

    /// Whether every message received is sent back (default false).
    public var echoes: Bool {
        get { state.withLock { $0.echoes } }
        set { state.withLock { $0.echoes = newValue } }
    }

    /// Whether handshakes are accepted (default true). While false, upgrade requests are answered by
    /// the stub's HTTP stubs for the same request (a 401, a 503 with `Retry-After`…), or its fallback.
    public var isAccepting: Bool {
        get { state.withLock { $0.isAccepting } }
        set { state.withLock { $0.isAccepting = newValue } }
    }

    // MARK: What it saw

    /// Every message the client sent, in order, over all connections.
    public var receivedMessages: [WebSocketMessage] {
        state.withLock { $0.received }
    }

    /// The codes of the close frames the client sent (nil for a close frame without a code), in order.
    public var receivedCloseCodes: [WebSocketCloseCode?] {
        state.withLock { $0.closeCodes }
    }

    /// How many connections the server accepted.
    public var connectionCount: Int {
        state.withLock { $0.connectionCount }
    }

    /// Whether a connection is open.
    public var isConnected: Bool {
        state.withLock { $0.connection != nil }
    }

    // MARK: The stub's side

    /// Accepts `request` if the server is accepting: the 101's head and the new connection, which
    /// replaces (drops) any open one.
    func accept(_ request: HTTPTransportRequest) -> (HTTPResponseHead, any UpgradedConnection)? {
        guard let key = request.value(forHTTPHeaderField: "Sec-WebSocket-Key") else { return nil }
        let connection = StubUpgradedConnection(server: self, delivery: delivery)
        let previous = state.withLock { state -> StubUpgradedConnection?? in
            guard state.isAccepting else { return .none }
            defer {
                state.connection = connection
                state.connectionCount += 1
            }
            return .some(state.connection)
        }
        guard case .some(let replaced) = previous else { return nil }
        replaced?.end(error: nil)
        var headers = ["Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": WebSocketHandshake.accept(for: key)]
        if let selectedProtocol { headers["Sec-WebSocket-Protocol"] = selectedProtocol }
        return (HTTPResponseHead(statusCode: 101, headers: headers, url: request.url), connection)
    }

    /// What the connection read from the client; returns whether to echo it and to answer pings.
    fileprivate func received(_ message: WebSocketMessage) -> Bool {
        state.withLock { state in
            state.received.append(message)
            return state.echoes
        }
    }

    fileprivate func receivedClose(_ code: WebSocketCloseCode?) {
        state.withLock { $0.closeCodes.append(code) }
    }

    fileprivate var pingsAnswered: Bool {
        state.withLock { $0.answersPings }
    }

    /// The connection ended: it is no longer the open one.
    fileprivate func ended(_ connection: StubUpgradedConnection) {
        state.withLock { state in
            if state.connection === connection { state.connection = nil }
        }
    }
}

/// Runs deliveries in order: on the stub's scheduler, or on a serial queue.
private struct StubDelivery: Sendable {
    let scheduler: (any SchedulerType)?
    let queue = DispatchQueue(label: "RxTesting.StubWebSocketServer")

    func run(_ work: @escaping @Sendable () -> Void) {
        if let scheduler {
            _ = scheduler.schedule(()) { _ in
                work()
                return Disposables.create()
            }
        } else {
            queue.async(execute: work)
        }
    }
}

/// One accepted connection, as the client's `WebSocket` sees it: bytes from the server's frames,
/// then one `.closed`; what the client writes is parsed as a server parses it (masked frames).
private final class StubUpgradedConnection: UpgradedConnection {
    private struct State {
        var receive: (@Sendable (UpgradedConnectionEvent) -> Void)?
        /// Events before `start(_:)`, in order.
        var backlog: [UpgradedConnectionEvent] = []
        var parser = WebSocketFrameParser(role: .server, maxFrameSize: 64 << 20)
        var assembler = WebSocketMessageAssembler(maxMessageSize: 64 << 20)
        /// `.closed` went out (or is queued): nothing follows it.
        var isOver = false
        /// The server sent its close frame and waits for the client's.
        var serverClosing = false
    }

    private weak let server: StubWebSocketServer?
    private let delivery: StubDelivery
    private let state = LockedState<State>.make(State())

    init(server: StubWebSocketServer, delivery: StubDelivery) {
        self.server = server
        self.delivery = delivery
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    func start(_ receive: @escaping @Sendable (UpgradedConnectionEvent) -> Void) {
        let backlog = state.withLock { state -> [UpgradedConnectionEvent] in
            guard state.receive == nil else { return [] }
            state.receive = receive
            defer { state.backlog = [] }
            return state.backlog
        }
        for event in backlog {
            delivery.run { receive(event) }
        }
    }

    func write(_ data: Data, completion: @escaping @Sendable ((any Error)?) -> Void) {
        let over = state.withLock { $0.isOver }
        guard !over else {
            delivery.run { completion(HTTPClientError(.transport, message: "the connection is closed", phase: .sentWithoutResponse)) }
            return
        }
        delivery.run { completion(nil) }
        read(data)
    }

    func close() {
        end(error: nil)
    }

    // MARK: The server's side

    /// Sends `frame` to the client.
    func deliver(_ frame: WebSocketFrame) {
        emit(.bytes(WebSocketFrameEncoder.encode(frame, mask: nil)))
    }

    func serverCloses(code: WebSocketCloseCode, reason: String) {
        let first = state.withLock { state -> Bool in
            defer { state.serverClosing = true }
            return !state.serverClosing && !state.isOver
        }
        guard first else { return }
        deliver(Self.closeFrame(code: code, reason: reason))
    }

    /// Ends the connection: the client gets `.closed` (with `error` for a drop).
    func end(error: (any Error)?) {
        emit(.closed(error))
        server?.ended(self)
    }

    // MARK: Reading the client

    /// Parses what the client wrote, as a server does, and acts on each message and control frame.
    private func read(_ data: Data) {
        var replies: [WebSocketFrame] = []
        var closing: WebSocketCloseCode??
        var failure: WebSocketProtocolError?
        var messages: [WebSocketMessage] = []
        state.withLock { state in
            state.parser.append(data)
            do throws(WebSocketProtocolError) {
                while closing == nil, let frame = try state.parser.next() {
                    switch try state.assembler.receive(frame) {
                    case .text(let text)?: messages.append(.text(text))
                    case .binary(let bytes)?: messages.append(.binary(bytes))
                    case .ping(let payload)?: replies.append(WebSocketFrame(opcode: .pong, payload: payload))
                    case .pong?, nil: break
                    case .close(let code, _)?: closing = .some(code.map(WebSocketCloseCode.init(rawValue:)))
                    }
                }
            } catch {
                failure = error
            }
        }
        guard let server else { return }
        for message in messages where server.received(message) {
            send(message)
        }
        if server.pingsAnswered {
            replies.forEach(deliver)
        }
        if let failure {
            deliver(Self.closeFrame(code: WebSocketCloseCode(rawValue: failure.closeCode), reason: ""))
            end(error: nil)
        } else if let closing {
            server.receivedClose(closing)
            // The client began the close (or answered ours): answer it, then the connection ends.
            let answered = state.withLock { $0.serverClosing }
            if !answered {
                deliver(Self.closeFrame(code: closing ?? .normalClosure, reason: ""))
            }
            end(error: nil)
        }
    }

    private func send(_ message: WebSocketMessage) {
        switch message {
        case .text(let text): deliver(WebSocketFrame(opcode: .text, payload: Data(text.utf8)))
        case .binary(let data): deliver(WebSocketFrame(opcode: .binary, payload: data))
        }
    }

    /// Queues `event` for the client (kept until `start(_:)`); nothing after `.closed`.
    private func emit(_ event: UpgradedConnectionEvent) {
        let receive = state.withLock { state -> (@Sendable (UpgradedConnectionEvent) -> Void)?? in
            guard !state.isOver else { return .none }
            if case .closed = event { state.isOver = true }
            guard let receive = state.receive else {
                state.backlog.append(event)
                return .some(nil)
            }
            return .some(receive)
        }
        guard case .some(let receive?) = receive else { return }
        delivery.run { receive(event) }
    }

    /// A close frame with `code` and as much of `reason` as fits (whole characters, so that it stays
    /// UTF-8).
    private static func closeFrame(code: WebSocketCloseCode, reason: String) -> WebSocketFrame {
        var reasonBytes: [UInt8] = []
        for character in reason {
            let bytes = Array(String(character).utf8)
            guard reasonBytes.count + bytes.count <= WebSocketFrame.maxControlPayload - 2 else { break }
            reasonBytes += bytes
        }
        return WebSocketFrame(opcode: .close, payload: [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + reasonBytes)
    }
}
