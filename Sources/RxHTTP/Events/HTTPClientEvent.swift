import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One step of one call of an `HTTPClient` (or of one of its hosts, or its authenticator), as
/// `HTTPClient.events` reports it.
///
/// Safe to ship to logs and metrics: the URL is redacted like the logger's, and failures are told by
/// their code, phase and status — never a header, a body, a token or the error value itself.
///
/// - Note: A value type; `Sendable`.
public struct HTTPClientEvent: Sendable, CustomStringConvertible {
    /// Why a call is waiting before it can be sent.
    public enum HoldReason: String, Sendable, Hashable {
        /// The client is suspended (`suspend()`).
        case suspended
        /// Its host asked for a pause (`Retry-After`).
        case cooldown
        /// Its host has `maxConcurrentRequests` in flight.
        case hostQueue
        /// Its host's `RateLimit` has no turn free yet.
        case rateLimit
        /// Its credential is being refreshed.
        case credential
    }

    /// How a call ended.
    public enum Outcome: Sendable, Hashable {
        /// Delivered a value, after an answer with this status.
        case success(statusCode: Int)
        /// Delivered an error of this code (and status, if there was an answer).
        case failure(code: HTTPClientError.Code, statusCode: Int?, phase: HTTPClientError.Phase)
    }

    /// What happened.
    public enum Kind: Sendable {
        /// The call was made.
        case started
        /// The call waits before its next send.
        case held(HoldReason)
        /// Attempt `attempt` goes to the transport (after plugins, signed).
        case attemptStarted(attempt: Int)
        /// Attempt `attempt` was answered with `statusCode`, `duration` seconds after it started.
        case response(attempt: Int, statusCode: Int, duration: TimeInterval)
        /// Attempt `attempt` failed without an answer.
        case attemptFailed(attempt: Int, code: HTTPClientError.Code, phase: HTTPClientError.Phase, duration: TimeInterval)
        /// The call will send again after `delay` seconds (or sooner, if its host comes back).
        case retryScheduled(nextAttempt: Int, delay: TimeInterval, after: HTTPClientError.Code, statusCode: Int?)
        /// A wait to retry ended, by `trigger`, after `waited` seconds.
        case waitEnded(trigger: RetryTrigger, waited: TimeInterval)
        /// The authenticator began refreshing the credential (no request id).
        case authRefreshStarted
        /// The refresh ended: `succeeded`, or failed with `code`.
        case authRefreshEnded(succeeded: Bool, code: HTTPClientError.Code?)
        /// A host's circuit breaker changed state (no request id; `url` is the host's origin).
        case circuitChanged(CircuitState)
        /// The call delivered its one result.
        case completed(Outcome, duration: TimeInterval, attempts: Int)
        /// A WebSocket's connection opened (`url` is the socket's), with the subprotocol the server chose.
        case webSocketOpened(protocol: String?)
        /// A WebSocket's connection ended after `after`; the `attempt`-th reconnect in a row starts
        /// after `delay` seconds (or sooner, if its host comes back).
        case webSocketReconnecting(attempt: Int, delay: TimeInterval, after: HTTPClientError.Code)
        /// A WebSocket ended with `code`, after `received` and `sent` messages since it was subscribed.
        case webSocketClosed(code: WebSocketCloseCode, received: Int, sent: Int)
        /// The engine of the client's `Fleet` went away (`available` false: each replica runs on its
        /// own protection, its share of a fleet quota) or came back (no request id, no URL).
        case fleetEngineChanged(available: Bool)
        /// `enqueue` stored outbox entry `entry`; the outbox now holds `depth` entries. Method and
        /// URL are the entry's; no request id.
        case outboxEnqueued(entry: UUID, depth: Int)
        /// `deliver` sends outbox entry `entry` for the `attempt`-th time in this process (each time
        /// is a call of its own, with its own events and retries).
        case outboxAttempt(entry: UUID, attempt: Int)
        /// Outbox entry `entry` has its one outcome, recorded and about to be handed over
        /// (`recovered`: recorded by an earlier process); `depth` entries are in the outbox,
        /// this one still among them until it is handed over.
        case outboxOutcome(entry: UUID, Outcome, recovered: Bool, depth: Int)
    }

    /// The call's request id (the `#N` of log lines, `HTTPRequestInfo.callID`); nil for an event of
    /// a host or of the authenticator.
    public let requestID: UInt64?
    /// The call's method, if the event belongs to a call.
    public let method: HTTPMethod?
    /// The redacted URL (the host's origin for circuit events).
    public let url: String?
    /// When, on the clock of the call's retry scheduler (virtual in tests).
    public let timestamp: Date
    /// What happened.
    public let kind: Kind
    /// For `.completed`: the bytes of the answer's body — for a streamed response, every byte of the
    /// whole stream (its event comes when the body ends). Nil for other events.
    public let bodyBytes: Int?
    /// For a `.completed` success: where the answer came from (the network, or the client's
    /// `HTTPCache`). Nil for other events.
    public let cacheStatus: CacheStatus?

    /// Creates an event.
    public init(
        requestID: UInt64?, method: HTTPMethod?, url: String?, timestamp: Date, kind: Kind, bodyBytes: Int? = nil,
        cacheStatus: CacheStatus? = nil
    ) {
        self.requestID = requestID
        self.method = method
        self.url = url
        self.timestamp = timestamp
        self.kind = kind
        self.bodyBytes = bodyBytes
        self.cacheStatus = cacheStatus
    }

    /// `#7 GET https://api.example.com/users: 200 after 1 attempt in 0.0124 s`, and `(cache hit)`,
    /// `(revalidated)` or `(stale)` for an answer from the cache.
    public var description: String {
        let subject = [requestID.map { "#\($0)" }, method?.rawValue, url].compactMap { $0 }.joined(separator: " ")
        let source: String
        switch cacheStatus {
        case nil, .network?: source = ""
        case .hit?: source = " (cache hit)"
        case let status?: source = " (\(status))"
        }
        return (subject.isEmpty ? "\(kind)" : "\(subject): \(kind)") + source
    }
}

/// Where a client's events go: a hot stream that costs one lock read per would-be event when nobody
/// listens. Events are delivered one at a time, in the order they were emitted (so in order per
/// call), never under a lock of the client, on RxCore's drain loop: the emitting thread delivers
/// directly when nobody else is delivering; otherwise it leaves the event to the thread that is.
final class EventHub: Sendable {
    private let subject = PublishSubject<HTTPClientEvent>()
    /// Events left for the delivering thread.
    private let pending = LockedState<[HTTPClientEvent]>.make([])
    private let delivery = DrainLoop()

    /// The hot stream.
    var events: Observable<HTTPClientEvent> {
        subject.asObservable()
    }

    /// Whether anybody listens: checked before an event is even built.
    var isActive: Bool {
        subject.hasObservers
    }

    func emit(_ event: HTTPClientEvent) {
        if delivery.tryClaim() {
            subject.onNext(event)
            let missed = delivery.release()
            if missed != 0 { deliverPending(missed: missed) }
            return
        }
        pending.withLock { $0.append(event) }
        if delivery.signal() { deliverPending(missed: 1) }
    }

    private func deliverPending(missed: Int) {
        delivery.run(missed: missed) {
            let batch = pending.withLock { pending -> [HTTPClientEvent] in
                defer { pending = [] }
                return pending
            }
            guard !batch.isEmpty else { return .idle }
            for event in batch {
                subject.onNext(event)
            }
            return .delivered
        }
    }
}
