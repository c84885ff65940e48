import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// A WebSocket (RFC 6455) of an `HTTPClient` that keeps itself connected: made by
/// `client.webSocket(path:protocols:reconnect:options:)`.
///
/// Subscribing to `messages` connects (the opening handshake is a request of the client: its
/// interceptors, authentication — a 401 refreshes the credential once and sends again —, host
/// protection, retry policy and events apply); further subscribers share the connection; the last
/// one leaving closes it with 1000. A connection that drops, stops answering pings, or is closed by
/// the server with a code that may pass (see `WebSocketCloseCode.reconnects`) is opened again per
/// the `ReconnectPolicy`, sooner when the host's reachability comes back; `state` tells each step.
/// What ends the socket for good reaches the subscribers: a completion (the server's 1000, `close`,
/// the client's shutdown — which closes with 1001 —) or an `HTTPClientError` (the upgrade refused,
/// the server's close for good as `.webSocketClosed`, a broken protocol as `.invalidResponse`, a
/// message over `maxMessageSize` as `.responseTooLarge`, a subscriber too slow as
/// `.bufferOverflow`, a transport without WebSockets as `.unsupported`). A new subscriber then
/// connects again.
///
/// Messages received while nobody is subscribed are not kept (nothing is connected then).
///
/// - Note: Thread-safe. Messages, states and ends are delivered in order on the client's callback
///   queue (or `callbackScheduler`), or at once on the thread that produced them with
///   `WebSocketOptions.deliversOnConnectionThread`.
public final class WebSocket: Sendable {
    private struct Core: Sendable {
        var machine: WebSocketMachine
        /// What subscribers are still to be told, in the machine's order.
        var outbox: [WebSocketMachine.Delivery] = []
        /// The bytes of the messages in `outbox`.
        var bufferedBytes = 0
        var draining = false
        /// Writes and closes of the connection, in the machine's order: one thread at a time runs
        /// them (`writing`), so that the wire's order is the machine's even when the events that
        /// made them came on different threads (no message after the close frame).
        var connectionWork: [WebSocketMachine.Effect] = []
        var writing = false
        var nextID = 0
        /// The client's record of the current subscription (for its shutdown).
        var session: WebSocketSession?
        /// A session that ended while deliveries were still on their way: the client hears of its
        /// end after the last of them (its terminal event), so that a shutdown never completes
        /// before a subscriber's `onCompleted`.
        var endedAfterDelivery: WebSocketSession?
    }

    private let client: HTTPClient
    private let path: String
    private let options: WebSocketOptions
    /// The socket's URL as events show it.
    private let redactedURL: String?
    private let core: LockedState<Core>
    private let stateSubject = BehaviorSubject<WebSocketState>(value: .idle)

    init(client: HTTPClient, path: String, protocols: [String], reconnect: ReconnectPolicy, options: WebSocketOptions) {
        self.client = client
        self.path = path
        self.options = options
        self.redactedURL = client.baseURL
            .flatMap { URL(string: path, relativeTo: $0)?.absoluteURL }
            .map { Redaction.standard.url($0) }
        self.core = .make(Core(machine: WebSocketMachine(options: options, reconnect: reconnect, protocols: protocols)))
    }

    /// The messages the server sends; subscribing connects, the last dispose closes with 1000.
    ///
    /// - Returns: A shared `Observable`: it completes or fails when the socket ends for good (see
    ///   `WebSocket`); each subscriber gets the messages that arrive while it is subscribed.
    public var messages: Observable<WebSocketMessage> {
        Observable.create { [self] observer in
            let id = core.withLock { core -> Int in
                core.nextID += 1
                return core.nextID
            }
            apply { $0.subscribe(id, observer, now: self.options.scheduler.now) }
            // The subscription keeps the socket alive (`client.webSocket(path:).messages` is enough).
            return Disposables.create { self.apply { $0.unsubscribe(id) } }
        }
    }

    /// Where the socket is: the current state at once, then each change, in order with `messages`.
    /// It never completes.
    public var state: Observable<WebSocketState> {
        stateSubject.asObservable()
    }

    /// The state now.
    public var currentState: WebSocketState {
        (try? stateSubject.value()) ?? .idle
    }

    /// The subprotocol the server chose for the open connection, if any.
    public var selectedProtocol: String? {
        core.withLock { $0.machine.selectedProtocol }
    }

    /// Sends `message`.
    ///
    /// On an open connection it is written at once; while the socket connects or reconnects it waits
    /// in a queue and goes out, in order, when the connection opens. At most
    /// `options.maxQueuedSends` sends may wait (queued, or written and not yet flushed).
    ///
    /// - Returns: A cold `Completable`: each subscription sends once. It completes when the message
    ///   was handed to the socket; it fails with `.bufferOverflow` at once when the queue is full,
    ///   with `.invalidRequest` for a message over `options.maxMessageSize`, with `.cancelled`
    ///   when nobody subscribed to `messages` (nothing is connected) or the socket ended before it
    ///   went out, with `.transport` when the connection dropped first. Disposing it before the
    ///   connection opens takes it out of the queue.
    public func send(_ message: WebSocketMessage) -> Completable {
        Completable.create { [self] observer in
            guard message.byteCount <= options.maxMessageSize else {
                observer(.error(HTTPClientError(
                    .invalidRequest, message: "a WebSocket message of \(message.byteCount) bytes passes maxMessageSize (\(options.maxMessageSize))",
                    phase: .notSent
                )))
                return Disposables.create()
            }
            let frame = switch message {
            case .text(let text): WebSocketFrame(opcode: .text, payload: Data(text.utf8))
            case .binary(let data): WebSocketFrame(opcode: .binary, payload: data)
            }
            let id = core.withLock { core -> Int in
                core.nextID += 1
                return core.nextID
            }
            apply {
                $0.send(id, frame) { error in
                    if let error { observer(.error(error)) } else { observer(.completed) }
                }
            }
            return Disposables.create { [weak self] in
                self?.core.withLock { $0.machine.cancelSend(id) }
            }
        }
    }

    /// Closes the socket with `code` and `reason` (cut to 123 bytes of UTF-8, on a character
    /// boundary): sends the close frame, waits for the server's (at most `options.closeTimeout`),
    /// then completes `messages`. A code an endpoint may not send (1004–1006, 1015, below 1000,
    /// 1016–2999, 5000 and up) goes out as 1000. No reconnect follows; a new subscriber to
    /// `messages` connects again.
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") {
        let sent = WebSocketMessageAssembler.isSendable(code.rawValue) ? code : .normalClosure
        let clipped = WebSocketMachine.clipped(reason)
        apply { $0.close(sent, reason: clipped, ending: .completed(sent, clipped)) }
    }

    // MARK: Running the machine

    /// Moves the machine under the lock (subscriber deliveries join the outbox there, and writes and
    /// closes the connection's queue, so that their order is the machine's), then runs its other
    /// effects after it.
    private func apply(_ event: (inout WebSocketMachine) -> [WebSocketMachine.Effect]) {
        let (effects, startDrain, startWriting) = core.withLock { core -> ([WebSocketMachine.Effect], Bool, Bool) in
            var effects = event(&core.machine)
            var outside: [WebSocketMachine.Effect] = []
            var index = 0
            var queued = false
            while index < effects.count {
                switch effects[index] {
                case .write, .closeConnection:
                    core.connectionWork.append(effects[index])
                    queued = true
                case .deliver(let delivery):
                    core.outbox.append(delivery)
                    if case .messages(let messages, _) = delivery {
                        for message in messages { core.bufferedBytes += message.byteCount }
                        if core.bufferedBytes > options.maxBufferedBytes {
                            core.bufferedBytes = 0
                            effects.append(contentsOf: core.machine.subscriberTooSlow())
                        }
                    }
                default:
                    outside.append(effects[index])
                }
                index += 1
            }
            let startWriting = queued && !core.writing
            if startWriting { core.writing = true }
            guard !core.outbox.isEmpty, !core.draining else { return (outside, false, startWriting) }
            core.draining = true
            return (outside, true, startWriting)
        }
        if startWriting {
            writeQueued()
        }
        for effect in effects {
            run(effect)
        }
        if startDrain {
            if options.deliversOnConnectionThread {
                drain()
            } else {
                client.runOnCallbackContext { [self] in drain() }
            }
        }
    }

    /// Runs the connection's queued writes and closes in order until none is left (another thread's
    /// `apply` may add more meanwhile: this loop runs them too).
    private func writeQueued() {
        while case let work = takeQueued(\.connectionWork, running: \.writing), !work.isEmpty {
            for effect in work {
                run(effect)
            }
        }
    }

    /// Empties the queue at `queue` and returns what it held; when it is empty, clears `running`
    /// instead (in the same lock, so that an `apply` adding work after it starts a new loop).
    private func takeQueued<Item>(_ queue: WritableKeyPath<Core, [Item]>, running: WritableKeyPath<Core, Bool>) -> [Item] {
        core.withLock { core in
            guard !core[keyPath: queue].isEmpty else {
                core[keyPath: running] = false
                return []
            }
            defer { core[keyPath: queue] = [] }
            return core[keyPath: queue]
        }
    }

    private func run(_ effect: WebSocketMachine.Effect) {
        switch effect {
        case .connect(let generation, let slot):
            connect(generation: generation, slot: slot)
        case .startReading(let connection, let generation):
            connection.start { [weak self] event in
                guard let self else { return }
                let now = options.scheduler.now
                switch event {
                case .bytes(let bytes):
                    apply { $0.received(bytes, generation: generation, now: now) }
                case .closed(let error):
                    apply { $0.connectionEnded(generation: generation, error: error, now: now) }
                }
            }
        case .write(let connection, let frame, let generation, let sendID):
            let bytes = WebSocketFrameEncoder.encode(frame, mask: WebSocketFrameEncoder.randomMask())
            connection.write(bytes) { [weak self] error in
                guard let sendID else { return }
                self?.apply { $0.written(sendID: sendID, generation: generation, error: error) }
            }
        case .closeConnection(let connection):
            connection.close()
        case .dispose(let disposable):
            disposable.dispose()
        case .startTimer(let timer, let generation, let seconds):
            let disposable = options.scheduler.scheduleRelative((), dueTime: .seconds(seconds)) { [weak self] _ in
                guard let self else { return Disposables.create() }
                let now = options.scheduler.now
                apply { $0.timerFired(timer, generation: generation, now: now) }
                return Disposables.create()
            }
            apply { $0.timerStarted(timer, generation: generation, disposable) }
        case .watchReachability(let generation):
            guard let url = client.baseURL, let reachability = client.reachability(for: url) else { return }
            let recovery = reachability.whenReachableAgain { [weak self] in
                self?.apply { $0.reachable(generation: generation) }
            }
            apply { $0.recoveryStarted(generation: generation, recovery) }
        case .completeSends(let completions, let error):
            for completion in completions {
                completion(error)
            }
        case .deliver:
            break
        case .event(let kind):
            client.emitEvent(kind, url: redactedURL)
        case .register:
            let session = WebSocketSession(id: client.makeRequestID(), socket: self)
            core.withLock { $0.session = session }
            if !client.admit(session) {
                apply { $0.clientIsShuttingDown() }
            }
        case .unregister:
            if let session = core.withLock({ core -> WebSocketSession? in
                defer { core.session = nil }
                guard core.draining || !core.outbox.isEmpty else { return core.session }
                core.endedAfterDelivery = core.session
                return nil
            }) {
                client.callFinished(id: session.id)
            }
        }
    }

    /// Starts the handshake call of connection `generation`.
    private func connect(generation: Int, slot: WebSocketUpgradeSlot) {
        let parts = HTTPClient.RequestParts(
            baseURL: nil, path: path, method: .get,
            headers: HeaderFields.merging(options.headers, WebSocketHandshake.requestHeaders(key: slot.key, protocols: slot.protocols)),
            query: [:], body: nil, timeout: nil, bypassesSuspension: false, authorizationType: nil, declaresAuthorization: false,
            requestName: "webSocket", idempotency: .byMethod
        )
        let handle = client.send(parts, policy: client.configuration.retryPolicy, upgrade: slot, decode: { response, _ in
            response.statusCode
        }, completion: { [weak self] result in
            guard let self else {
                slot.release()
                return
            }
            switch result {
            case .success:
                apply { $0.upgraded(generation: generation) }
            case .failure(let error):
                let now = options.scheduler.now
                apply { $0.upgradeFailed(generation: generation, error, now: now) }
            }
        })
        apply { $0.callStarted(generation: generation, Disposables.create { handle.cancel() }) }
    }

    /// Tells subscribers what the outbox holds, batch by batch, on the callback context (or on the
    /// calling thread, with `deliversOnConnectionThread`); one thread at a time (`draining`).
    private func drain() {
        while case let batch = takeDeliveries(), !batch.isEmpty {
            var delivered = 0
            for delivery in batch {
                switch delivery {
                case .messages(let messages, let observers):
                    for message in messages {
                        for observer in observers { observer.onNext(message) }
                        delivered += message.byteCount
                    }
                case .state(let state):
                    stateSubject.onNext(state)
                case .end(.completed, let observers):
                    for observer in observers { observer.onCompleted() }
                case .end(.failed(let error, _, _), let observers):
                    for observer in observers { observer.onError(error) }
                }
            }
            core.withLock { $0.bufferedBytes = max(0, $0.bufferedBytes - delivered) }
        }
    }

    /// The deliveries queued, or — none left — the end of draining, and the client told of a
    /// session that ended meanwhile (in the same critical section, so that no later drain can have
    /// begun delivering).
    private func takeDeliveries() -> [WebSocketMachine.Delivery] {
        let (batch, ended) = core.withLock { core -> ([WebSocketMachine.Delivery], WebSocketSession?) in
            guard core.outbox.isEmpty else {
                defer { core.outbox = [] }
                return (core.outbox, nil)
            }
            core.draining = false
            defer { core.endedAfterDelivery = nil }
            return ([], core.endedAfterDelivery)
        }
        if let ended { client.callFinished(id: ended.id) }
        return batch
    }

    // MARK: Shutdown (through WebSocketSession)

    fileprivate func clientIsShuttingDown() {
        apply { $0.clientIsShuttingDown() }
    }

    fileprivate func gracePeriodEnded() {
        let now = options.scheduler.now
        apply { $0.gracePeriodEnded(now: now) }
    }
}

/// One subscription of a `WebSocket` as the client's shutdown sees it: a live call that closes
/// with 1001 when shutdown begins and is dropped when the grace period ends.
///
/// It holds its socket: from the first subscriber until the socket ended (its close handshake
/// included), the client's list of live calls keeps the socket alive, so that a socket nobody else
/// references still closes its connection and still hears the shutdown.
private final class WebSocketSession: ClientCall {
    let id: UInt64
    private let socket: WebSocket

    init(id: UInt64, socket: WebSocket) {
        self.id = id
        self.socket = socket
    }

    func clientIsShuttingDown() {
        socket.clientIsShuttingDown()
    }

    func gracePeriodEnded() {
        socket.gracePeriodEnded()
    }
}

extension HTTPClient {
    /// A WebSocket at `path` under the base URL (`http` for `ws`, `https` for `wss`).
    ///
    /// Nothing connects until something subscribes to the socket's `messages`; see `WebSocket`.
    ///
    /// - Parameters:
    ///   - path: The path under the base URL, with its query if any.
    ///   - protocols: Subprotocols offered (`Sec-WebSocket-Protocol`), in order of preference; a
    ///     server choosing one not offered fails the handshake.
    ///   - reconnect: When and how soon a lost connection is opened again (the policy Server-Sent
    ///     Events use; `.never` to end with the first connection).
    ///   - options: Timers and bounds.
    /// - Returns: The socket; thread-safe.
    public func webSocket(
        path: String,
        protocols: [String] = [],
        reconnect: ReconnectPolicy = ReconnectPolicy(),
        options: WebSocketOptions = WebSocketOptions()
    ) -> WebSocket {
        WebSocket(client: self, path: path, protocols: protocols, reconnect: reconnect, options: options)
    }
}
