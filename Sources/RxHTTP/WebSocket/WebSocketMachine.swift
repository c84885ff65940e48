import Foundation
import RxCore

/// The life of one `WebSocket`: its connections one after another, the frames on the open one, its
/// timers, its sends and its subscribers, as one state whose cases own their resources.
///
/// Every event is a mutating function that returns the effects to run after the lock (`Effect`);
/// nothing here touches a transport, a clock or a thread, so that every transition is tested alone.
///
/// ```
/// idle ─subscribe→ connecting ─101→ open ─close (ours)→ closing ─close (theirs) / timeout→ idle
///                     ↑   │            │
///                     │   failure      ├─ drop, dead, close 1001/1011–1014 → waiting ─timer / reachable→ connecting
///                     │   ↓            └─ close 1000 / for good, protocol error, slow subscriber → idle
///                     └─ waiting
/// ```
struct WebSocketMachine {
    typealias Observer = AnyObserver<WebSocketMessage>
    typealias SendCompletion = @Sendable ((any Error)?) -> Void

    /// The timers a socket runs.
    enum Timer: Hashable {
        case ping
        /// The wait for the pong of ping number `n`.
        case pong(Int)
        case close, reconnect
    }

    /// A send not yet handed to a connection.
    struct QueuedSend {
        let id: Int
        let frame: WebSocketFrame
        let completion: SendCompletion
    }

    /// The connection being opened: the call of its handshake (set once started).
    struct Connecting {
        let generation: Int
        let slot: WebSocketUpgradeSlot
        var call: Disposable?
    }

    /// An open connection and what reads it.
    struct Open {
        let generation: Int
        let connection: any UpgradedConnection
        var parser: WebSocketFrameParser
        var assembler: WebSocketMessageAssembler
        var pingTimer: Disposable?
        var pongTimer: Disposable?
        /// The pings sent on this connection.
        var pings = 0
        /// The number of the ping waiting for its pong; nil once any pong arrived.
        var awaitingPong: Int?
        /// Written and not yet flushed, by send id: what a failed connection must report.
        var unflushed: [Int: SendCompletion] = [:]
    }

    /// Our close frame is sent; the server's is awaited (or its timer), then `ending` applies.
    struct Closing {
        let generation: Int
        let connection: any UpgradedConnection
        var parser: WebSocketFrameParser
        var assembler: WebSocketMessageAssembler
        var timer: Disposable?
        let ending: Ending
        /// Subscribers that arrived during the close: they get a new connection after it.
        var latecomers: [Int: Observer] = [:]
    }

    /// Between connections: the wait before the next.
    struct Waiting {
        let generation: Int
        var timer: Disposable?
        var recovery: Disposable?
    }

    enum State {
        case idle
        case connecting(Connecting)
        case open(Open)
        case closing(Closing)
        case waiting(Waiting)
    }

    /// How the socket ends for its subscribers.
    enum Ending {
        /// `messages` complete; the state reads `.closed(code, reason)`.
        case completed(WebSocketCloseCode, String)
        /// `messages` fail with `error`.
        case failed(HTTPClientError, WebSocketCloseCode, String)
    }

    /// What the socket does after a transition, outside the lock, in order.
    enum Effect {
        /// Open a connection: the handshake call, reported back with `callStarted`.
        case connect(generation: Int, slot: WebSocketUpgradeSlot)
        /// Start reading an opened connection.
        case startReading(any UpgradedConnection, generation: Int)
        /// Write a frame; a send's completion is reported back with `written`.
        case write(any UpgradedConnection, WebSocketFrame, generation: Int, sendID: Int?)
        case closeConnection(any UpgradedConnection)
        case dispose(Disposable)
        /// Start a timer, reported back with `timerStarted`.
        case startTimer(Timer, generation: Int, after: TimeInterval)
        /// Ask the host's reachability to end the wait of `generation` early.
        case watchReachability(generation: Int)
        case completeSends([SendCompletion], (any Error)?)
        /// Something for the subscribers, in order (see `Delivery`).
        case deliver(Delivery)
        case event(HTTPClientEvent.Kind)
        /// The socket became live for the client's shutdown, or stopped being.
        case register, unregister
    }

    /// What reaches subscribers, in the order the machine decided it.
    enum Delivery {
        /// The messages of one read, in order: one delivery however many they are.
        case messages([WebSocketMessage], [Observer])
        case state(WebSocketState)
        case end(Ending, [Observer])
    }

    let options: WebSocketOptions
    let reconnect: ReconnectPolicy
    let protocols: [String]
    private(set) var state = State.idle
    private(set) var subscribers: [Int: Observer] = [:]
    private(set) var queue: [QueuedSend] = []
    private var generation = 0
    private var reconnectsInARow = 0
    private var startedAt: Date?
    /// Whether the client began shutting down: no more connections.
    private var shuttingDown = false
    private var messagesReceived = 0
    private var messagesSent = 0
    /// The subprotocol the open connection's server chose.
    private(set) var selectedProtocol: String?

    init(options: WebSocketOptions, reconnect: ReconnectPolicy, protocols: [String]) {
        self.options = options
        self.reconnect = reconnect
        self.protocols = protocols
    }

    // MARK: Subscribers

    /// A subscriber arrived; the first connects.
    mutating func subscribe(_ id: Int, _ observer: Observer, now: Date) -> [Effect] {
        if case .closing(var closing) = state, !shuttingDown {
            // The closing connection is not theirs: they wait for the next one.
            closing.latecomers[id] = observer
            state = .closing(closing)
            return []
        }
        subscribers[id] = observer
        guard case .idle = state else { return [] }
        if shuttingDown {
            subscribers[id] = nil
            let error = HTTPClientError(.shutdown, message: "the client is shutting down", phase: .notSent)
            return [.deliver(.end(.failed(error, .goingAway, "client shutting down"), [observer]))]
        }
        startedAt = now
        reconnectsInARow = 0
        messagesReceived = 0
        messagesSent = 0
        return [.register] + connect()
    }

    /// A subscriber left; the last closes with 1000.
    mutating func unsubscribe(_ id: Int) -> [Effect] {
        if case .closing(var closing) = state, closing.latecomers.removeValue(forKey: id) != nil {
            state = .closing(closing)
            return []
        }
        guard subscribers.removeValue(forKey: id) != nil, subscribers.isEmpty else { return [] }
        return close(.normalClosure, reason: "", ending: .completed(.normalClosure, ""))
    }

    // MARK: Connecting

    private mutating func connect() -> [Effect] {
        generation += 1
        let slot = WebSocketUpgradeSlot(key: WebSocketHandshake.makeKey(), protocols: protocols)
        state = .connecting(Connecting(generation: generation, slot: slot))
        return [.deliver(.state(.connecting)), .connect(generation: generation, slot: slot)]
    }

    /// The handshake call started; its handle is the connecting state's to cancel.
    mutating func callStarted(generation: Int, _ call: Disposable) -> [Effect] {
        guard case .connecting(var connecting) = state, connecting.generation == generation else { return [.dispose(call)] }
        connecting.call = call
        state = .connecting(connecting)
        return []
    }

    /// The handshake call delivered a 101 and the slot holds its connection.
    mutating func upgraded(generation: Int) -> [Effect] {
        guard case .connecting(let connecting) = state, connecting.generation == generation,
              let opened = connecting.slot.take() else { return [] }
        selectedProtocol = opened.selectedProtocol
        var open = Open(
            generation: generation, connection: opened.connection,
            parser: WebSocketFrameParser(role: .client, maxFrameSize: options.maxMessageSize),
            assembler: WebSocketMessageAssembler(maxMessageSize: options.maxMessageSize)
        )
        var effects: [Effect] = [.deliver(.state(.open)), .event(.webSocketOpened(protocol: opened.selectedProtocol)),
                                 .startReading(opened.connection, generation: generation)]
        for send in queue {
            open.unflushed[send.id] = send.completion
            messagesSent += 1
            effects.append(.write(opened.connection, send.frame, generation: generation, sendID: send.id))
        }
        queue = []
        state = .open(open)
        if options.pingInterval != .infinity {
            effects.append(.startTimer(.ping, generation: generation, after: options.pingInterval))
        }
        return effects
    }

    /// The handshake call failed (after the client's retry policy, authentication and host
    /// protection had their say).
    mutating func upgradeFailed(generation: Int, _ error: HTTPClientError, now: Date) -> [Effect] {
        guard case .connecting(let connecting) = state, connecting.generation == generation else { return [] }
        connecting.slot.release()
        if error.code == .shutdown || shuttingDown {
            return end(.completed(.goingAway, "client shutting down"))
        }
        let transient = error.isWorthReconnecting
        return reconnectOrEnd(after: error, transient: transient, retryAfter: error.retryAfter(now: now), code: .abnormalClosure, now: now)
    }

    // MARK: Reading

    /// Bytes from the connection of `generation`.
    mutating func received(_ bytes: Data, generation: Int, now: Date) -> [Effect] {
        switch state {
        case .open(var open) where open.generation == generation:
            // The state lets go of the parser first, so that appending does not copy its buffer.
            state = .idle
            open.parser.append(bytes)
            var effects: [Effect] = []
            var messages: [WebSocketMessage] = []
            while true {
                let inbound: WebSocketInbound?
                do throws(WebSocketProtocolError) {
                    // The payload is read where it was received: a message is its one copy.
                    let next = try open.parser.next(with: &open.assembler) { frame, assembler in
                        Result { () throws(WebSocketProtocolError) -> WebSocketInbound? in try assembler.receive(frame) }
                    }
                    guard let next else { break }
                    inbound = try next.get()
                } catch {
                    state = .open(open)
                    effects.append(contentsOf: deliverAll(messages))
                    return effects + protocolViolation(error)
                }
                switch inbound {
                case nil:
                    continue
                case .text(let text):
                    messages.append(.text(text))
                case .binary(let bytes):
                    messages.append(.binary(bytes))
                case .ping(let payload):
                    effects.append(.write(open.connection, WebSocketFrame(opcode: .pong, payload: payload), generation: generation, sendID: nil))
                case .pong:
                    open.awaitingPong = nil
                    if let pong = open.pongTimer {
                        effects.append(.dispose(pong))
                        open.pongTimer = nil
                    }
                    reconnectsInARow = 0
                case .close(let code, let reason):
                    state = .open(open)
                    effects.append(contentsOf: deliverAll(messages))
                    return effects + serverClosed(code: code.map(WebSocketCloseCode.init(rawValue:)) ?? .noStatusReceived, reason: reason)
                }
            }
            state = .open(open)
            if !messages.isEmpty { reconnectsInARow = 0 }
            return effects + deliverAll(messages)
        case .closing(var closing) where closing.generation == generation:
            // Only the server's close frame matters now; messages after ours are dropped (§5.5.1).
            state = .idle
            closing.parser.append(bytes)
            while true {
                let frame: WebSocketFrame?
                do throws(WebSocketProtocolError) {
                    frame = try closing.parser.next()
                } catch {
                    frame = nil
                }
                guard let frame else { break }
                if frame.opcode == .close {
                    return finishClosing(closing, now: now)
                }
            }
            state = .closing(closing)
            return []
        default:
            return []
        }
    }

    private mutating func deliverAll(_ messages: [WebSocketMessage]) -> [Effect] {
        guard !messages.isEmpty else { return [] }
        messagesReceived += messages.count
        let observers = Array(subscribers.values)
        return [.deliver(.messages(messages, observers))]
    }

    /// The server broke the protocol: close with the code it earned, and end for good.
    private mutating func protocolViolation(_ error: WebSocketProtocolError) -> [Effect] {
        let code = WebSocketCloseCode(rawValue: error.closeCode)
        var failure = HTTPClientError(
            code == .messageTooBig ? .responseTooLarge : .invalidResponse,
            message: "the server's WebSocket frames broke RFC 6455: \(error)", phase: .responded
        )
        failure.webSocketCloseCode = code
        // Failing the connection (§7.1.7): our close frame, then the socket closes without waiting,
        // since nothing more the server sends can be read.
        guard case .open(let open) = state else { return [] }
        var effects = release(open)
        effects.insert(.write(open.connection, Self.closeFrame(code, reason: ""), generation: open.generation, sendID: nil), at: 0)
        effects.append(.closeConnection(open.connection))
        return effects + end(.failed(failure, code, "\(error)"))
    }

    /// The server sent its close frame: answer it, drop the connection, and reconnect or end by
    /// the code's table.
    private mutating func serverClosed(code: WebSocketCloseCode, reason: String) -> [Effect] {
        guard case .open(let open) = state else { return [] }
        var effects = release(open)
        effects.insert(.write(open.connection, Self.closeFrame(code == .noStatusReceived ? nil : code, reason: ""), generation: open.generation, sendID: nil), at: 0)
        effects.append(.closeConnection(open.connection))
        state = .idle
        let clipped = Self.clipped(reason)
        if code.isNormal {
            return effects + end(.completed(code, clipped))
        }
        var error = HTTPClientError(.webSocketClosed, message: "the server closed the WebSocket with \(code) \(clipped)", phase: .responded)
        error.webSocketCloseCode = code
        guard code.reconnects, !shuttingDown else {
            return effects + end(.failed(error, code, clipped))
        }
        return effects + reconnectOrEnd(after: error, transient: true, retryAfter: nil, code: code, now: nil)
    }

    /// The connection of `generation` ended (the server's end of stream, or a failure).
    mutating func connectionEnded(generation: Int, error: (any Error)?, now: Date) -> [Effect] {
        switch state {
        case .open(let open) where open.generation == generation:
            let effects = release(open) + [.closeConnection(open.connection)]
            state = .idle
            var failure = (error as? HTTPClientError) ?? HTTPClientError(
                .transport, message: error.map { HTTPClientError.describe($0) } ?? "the server ended the connection without a close frame",
                underlying: error, phase: .responded
            )
            failure.webSocketCloseCode = .abnormalClosure
            if shuttingDown { return effects + end(.completed(.abnormalClosure, "")) }
            return effects + reconnectOrEnd(after: failure, transient: true, retryAfter: nil, code: .abnormalClosure, now: now)
        case .closing(let closing) where closing.generation == generation:
            return finishClosing(closing, now: now)
        default:
            return []
        }
    }

    // MARK: Timers

    /// A timer was started; the state that asked for it keeps it, or it is disposed.
    mutating func timerStarted(_ timer: Timer, generation: Int, _ disposable: Disposable) -> [Effect] {
        switch (timer, state) {
        case (.ping, .open(var open)) where open.generation == generation:
            open.pingTimer = disposable
            state = .open(open)
        case (.pong(let number), .open(var open)) where open.generation == generation && open.awaitingPong == number:
            open.pongTimer = disposable
            state = .open(open)
        case (.close, .closing(var closing)) where closing.generation == generation:
            closing.timer = disposable
            state = .closing(closing)
        case (.reconnect, .waiting(var waiting)) where waiting.generation == generation:
            waiting.timer = disposable
            state = .waiting(waiting)
        default:
            return [.dispose(disposable)]
        }
        return []
    }

    /// Reachability began watching the wait of `generation`.
    mutating func recoveryStarted(generation: Int, _ disposable: Disposable) -> [Effect] {
        guard case .waiting(var waiting) = state, waiting.generation == generation else { return [.dispose(disposable)] }
        waiting.recovery = disposable
        state = .waiting(waiting)
        return []
    }

    /// A timer of `generation` fired.
    mutating func timerFired(_ timer: Timer, generation: Int, now: Date) -> [Effect] {
        switch (timer, state) {
        case (.ping, .open(var open)) where open.generation == generation:
            // One ping at a time: the next waits for the interval after this one's pong timer.
            open.pingTimer = nil
            open.pings += 1
            var effects: [Effect] = []
            if open.awaitingPong == nil {
                // A pong still awaited keeps its own timer: the connection is judged by the oldest ping.
                open.awaitingPong = open.pings
                effects.append(.startTimer(.pong(open.pings), generation: generation, after: options.pongTimeout))
            }
            state = .open(open)
            return effects + [
                .write(open.connection, WebSocketFrame(opcode: .ping, payload: Data(String(open.pings).utf8)), generation: generation, sendID: nil),
                .startTimer(.ping, generation: generation, after: options.pingInterval),
            ]
        case (.pong(let number), .open(let open)) where open.generation == generation && open.awaitingPong == number:
            var error = HTTPClientError(
                .timedOut, message: "no pong within \(options.pongTimeout) s: the connection is dead", phase: .responded
            )
            error.webSocketCloseCode = .abnormalClosure
            let effects = release(open) + [.closeConnection(open.connection)]
            state = .idle
            if shuttingDown { return effects + end(.completed(.abnormalClosure, "")) }
            return effects + reconnectOrEnd(after: error, transient: true, retryAfter: nil, code: .abnormalClosure, now: now)
        case (.close, .closing(let closing)) where closing.generation == generation:
            return finishClosing(closing, now: now)
        case (.reconnect, .waiting(let waiting)) where waiting.generation == generation:
            return waitEnded(waiting)
        default:
            return []
        }
    }

    /// The host's reachability came back during the wait of `generation`.
    mutating func reachable(generation: Int) -> [Effect] {
        guard case .waiting(let waiting) = state, waiting.generation == generation else { return [] }
        return waitEnded(waiting)
    }

    private mutating func waitEnded(_ waiting: Waiting) -> [Effect] {
        let effects: [Effect] = [waiting.timer, waiting.recovery].compactMap { $0.map { .dispose($0) } }
        state = .idle
        return effects + connect()
    }

    // MARK: Sending

    /// A subscriber to `send` asks for `frame` to go out.
    mutating func send(_ id: Int, _ frame: WebSocketFrame, completion: @escaping SendCompletion) -> [Effect] {
        switch state {
        case .open(var open):
            guard open.unflushed.count < options.maxQueuedSends else { return [.completeSends([completion], overflow())] }
            open.unflushed[id] = completion
            messagesSent += 1
            state = .open(open)
            return [.write(open.connection, frame, generation: open.generation, sendID: id)]
        case .connecting, .waiting:
            guard queue.count < options.maxQueuedSends else { return [.completeSends([completion], overflow())] }
            queue.append(QueuedSend(id: id, frame: frame, completion: completion))
            return []
        case .idle, .closing:
            let error = HTTPClientError(
                .cancelled, message: "the WebSocket is not connected: subscribe to its messages first", phase: .notSent
            )
            return [.completeSends([completion], error)]
        }
    }

    /// The subscriber to a send left before it was written: a queued send is dropped.
    mutating func cancelSend(_ id: Int) {
        queue.removeAll { $0.id == id }
    }

    /// A write of `generation` finished.
    mutating func written(sendID: Int, generation: Int, error: (any Error)?) -> [Effect] {
        guard case .open(var open) = state, open.generation == generation,
              let completion = open.unflushed.removeValue(forKey: sendID) else { return [] }
        state = .open(open)
        return [.completeSends([completion], error)]
    }

    private func overflow() -> HTTPClientError {
        HTTPClientError(.bufferOverflow, message: "more than \(options.maxQueuedSends) WebSocket sends are waiting", phase: .notSent)
    }

    // MARK: Closing and ending

    /// Closes with `code` (ours): the closing handshake if open, then `ending`.
    mutating func close(_ code: WebSocketCloseCode, reason: String, ending: Ending) -> [Effect] {
        switch state {
        case .idle, .closing:
            return []
        case .connecting(let connecting):
            connecting.slot.release()
            state = .idle
            return (connecting.call.map { [.dispose($0)] } ?? []) + end(ending)
        case .waiting(let waiting):
            state = .idle
            return [waiting.timer, waiting.recovery].compactMap { $0.map { .dispose($0) } } + end(ending)
        case .open(let open):
            var effects = release(open)
            effects.insert(.write(open.connection, Self.closeFrame(code, reason: reason), generation: open.generation, sendID: nil), at: 0)
            state = .closing(Closing(
                generation: open.generation, connection: open.connection, parser: open.parser, assembler: open.assembler, ending: ending
            ))
            return effects + [.startTimer(.close, generation: open.generation, after: options.closeTimeout)]
        }
    }

    /// A subscriber is too slow for `maxBufferedBytes`: close with 1008 and fail.
    mutating func subscriberTooSlow() -> [Effect] {
        var error = HTTPClientError(
            .bufferOverflow, message: "WebSocket subscribers fell more than \(options.maxBufferedBytes) bytes behind", phase: .responded
        )
        error.webSocketCloseCode = .policyViolation
        return close(.policyViolation, reason: "subscriber too slow", ending: .failed(error, .policyViolation, "subscriber too slow"))
    }

    /// The client began shutting down: close with 1001, then complete.
    mutating func clientIsShuttingDown() -> [Effect] {
        shuttingDown = true
        return close(.goingAway, reason: "client shutting down", ending: .completed(.goingAway, "client shutting down"))
    }

    /// The grace period ended: drop whatever is left at once.
    mutating func gracePeriodEnded(now: Date) -> [Effect] {
        shuttingDown = true
        guard case .closing(let closing) = state else {
            return close(.goingAway, reason: "client shutting down", ending: .completed(.goingAway, "client shutting down"))
        }
        return finishClosing(closing, now: now)
    }

    private mutating func finishClosing(_ closing: Closing, now: Date) -> [Effect] {
        state = .idle
        var effects = (closing.timer.map { [.dispose($0)] } ?? []) + [.closeConnection(closing.connection)] + end(closing.ending)
        if !closing.latecomers.isEmpty {
            // A fresh start for those who subscribed while it closed (a shutdown refuses them).
            var next: [Effect] = []
            for (id, observer) in closing.latecomers.sorted(by: { $0.key < $1.key }) {
                next += subscribe(id, observer, now: now)
            }
            effects += next
        }
        return effects
    }

    /// Reconnects after `error` if the policy allows, else ends with it.
    private mutating func reconnectOrEnd(
        after error: HTTPClientError, transient: Bool, retryAfter: TimeInterval?, code: WebSocketCloseCode, now: Date?
    ) -> [Effect] {
        state = .idle
        let reason = error.message ?? error.code.rawValue
        guard transient, !subscribers.isEmpty else { return end(.failed(error, code, reason)) }
        reconnectsInARow += 1
        let elapsed = startedAt.flatMap { startedAt in now.map { $0.timeIntervalSince(startedAt) } }
        guard let wait = reconnect.wait(beforeReconnect: reconnectsInARow, retryAfter: retryAfter, elapsed: elapsed) else {
            return end(.failed(error, code, reason))
        }
        generation += 1
        state = .waiting(Waiting(generation: generation))
        var effects: [Effect] = [
            .deliver(.state(.reconnecting(attempt: reconnectsInARow, after: wait))),
            .event(.webSocketReconnecting(attempt: reconnectsInARow, delay: wait, after: error.code)),
            .startTimer(.reconnect, generation: generation, after: wait),
        ]
        if reconnect.reconnectsWhenReachable {
            effects.append(.watchReachability(generation: generation))
        }
        return effects
    }

    /// Tells every subscriber and every waiting send how the socket ended; the state is idle.
    private mutating func end(_ ending: Ending) -> [Effect] {
        state = .idle
        let observers = Array(subscribers.values)
        subscribers = [:]
        let sends = queue.map(\.completion)
        queue = []
        let (code, reason, error): (WebSocketCloseCode, String, HTTPClientError?) = switch ending {
        case .completed(let code, let reason): (code, reason, nil)
        case .failed(let error, let code, let reason): (code, reason, error)
        }
        var effects: [Effect] = [
            .deliver(.state(.closed(code: code, reason: reason))),
            .deliver(.end(ending, observers)),
            .event(.webSocketClosed(code: code, received: messagesReceived, sent: messagesSent)),
            .unregister,
        ]
        if !sends.isEmpty {
            effects.insert(.completeSends(sends, error ?? HTTPClientError(.cancelled, message: "the WebSocket closed", phase: .notSent)), at: 0)
        }
        return effects
    }

    /// Disposes an open connection's timers and fails its unflushed sends (the connection itself is
    /// the caller's to close, after any last frame).
    private func release(_ open: Open) -> [Effect] {
        var effects: [Effect] = [open.pingTimer, open.pongTimer].compactMap { $0.map { .dispose($0) } }
        if !open.unflushed.isEmpty {
            effects.append(.completeSends(Array(open.unflushed.values), HTTPClientError(
                .transport, message: "the WebSocket connection ended before the message was written", phase: .sentWithoutResponse
            )))
        }
        return effects
    }

    /// A close frame: the code (none for 1005) and a reason cut to fit a control frame.
    static func closeFrame(_ code: WebSocketCloseCode?, reason: String) -> WebSocketFrame {
        guard let code else { return WebSocketFrame(opcode: .close, payload: Data()) }
        let payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)] + Array(clipped(reason).utf8)
        return WebSocketFrame(opcode: .close, payload: Data(payload))
    }

    /// `reason` cut to the 123 bytes a close frame has room for, on a character boundary.
    static func clipped(_ reason: String) -> String {
        var bytes = Array(reason.utf8.prefix(WebSocketFrame.maxControlPayload - 2))
        while !bytes.isEmpty {
            if let text = String(validating: bytes, as: UTF8.self) { return text }
            bytes.removeLast()
        }
        return ""
    }
}
