import Foundation
@_spi(RxNetworkKitInternals) import RxCore

extension HTTPClient {
    /// One Server-Sent Events connection after another: each connection is a stream call whose body
    /// goes through a `ServerSentEventParser`; RxCore's `retry(when:)` decides every reconnect and its
    /// wait (the one retry operator of RxCore, not a loop of its own).
    func serverSentEventsObservable(_ parts: RequestParts, options: StreamOptions, reconnect: ReconnectPolicy) -> Observable<ServerSentEvent> {
        let scheduler = options.scheduler
        return Observable.deferredCapturingNonSendable { [self] in
            let session = EventStreamSession(id: makeRequestID(), startedAt: scheduler.now)
            // Live for the client's shutdown from subscription to end, so that a stream waiting to
            // reconnect hears it (between connections no call of the stream is live). Refused once
            // the shutdown has begun: the connection then fails with `.shutdown` like any request.
            let admitted = admit(session)
            let reachable: Observable<Void> = reconnect.reconnectsWhenReachable
                ? (self.baseURLOrPartsURL(parts).flatMap { self.reachability(for: $0) }?.didBecomeReachable ?? .never())
                : .never()
            return connection(parts, options: options, session: session)
                .retry(when: { (failures: Observable<Error>) -> Observable<Void> in
                    failures.flatMap { failure -> Observable<Void> in
                        // A shutdown ended the connection: the stream is over (a clean end completes).
                        if self.isShuttingDown { return .error(failure) }
                        guard let wait = session.reconnectWait(after: failure, policy: reconnect, now: scheduler.now) else {
                            return .error(failure)
                        }
                        let timer = Observable<Int>.timer(.seconds(wait), scheduler: scheduler).map { _ in () }
                        return wait == 0 ? .just(()) : Observable.amb([timer, reachable.take(1), session.shutdownBegins]).take(1)
                    }
                })
                .catch { error in
                    // The policy gave up after a clean end, or a shutdown ended the wait: the stream
                    // is over, not failed.
                    error is EventStreamSession.Ended ? .empty() : .error(error)
                }
                .do(onDispose: { [weak self] in
                    if admitted { self?.callFinished(id: session.id) }
                })
        }
    }

    /// The URL a request of `parts` goes to, for its host's reachability.
    private func baseURLOrPartsURL(_ parts: RequestParts) -> URL? {
        parts.baseURL ?? baseURL
    }

    /// One connection: emits its events; ends with `Ended` (to reconnect) or completes on 204.
    private func connection(_ parts: RequestParts, options: StreamOptions, session: EventStreamSession) -> Observable<ServerSentEvent> {
        Observable.createCapturingNonSendable { [self] observer in
            var parts = parts
            parts.headers = HeaderFields.merging(["Accept": "text/event-stream", "Cache-Control": "no-cache"], parts.headers)
            if let lastEventID = session.lastEventID, HeaderValidation.isValidValue(lastEventID) {
                parts.headers["Last-Event-ID"] = lastEventID
            }
            let parser = LockedState<ServerSentEventParser>.make(ServerSentEventParser(
                maxLineBytes: options.maxLineBytes, maxEventBytes: options.maxEventBytes, lastEventID: session.lastEventID
            ))
            return openStream(parts, options: options, isEndless: true, sink: StreamPump.Sink(
                chunk: { chunk in
                    // Events before a line over the limit are delivered before its error.
                    var events: [ServerSentEvent] = []
                    let (failure, lastID, retry) = parser.withLock { parser -> (Error?, String?, Int?) in
                        do {
                            try parser.feed(chunk) { events.append($0) }
                            return (nil, parser.lastEventID, parser.retry)
                        } catch {
                            return (error, parser.lastEventID, parser.retry)
                        }
                    }
                    session.update(lastEventID: lastID, retry: retry, delivered: !events.isEmpty)
                    for event in events { observer.onNext(event) }
                    if let failure { throw failure }
                },
                end: {
                    if session.noContent {
                        observer.onCompleted()
                    } else {
                        observer.onError(EventStreamSession.Ended())
                    }
                },
                fail: { error in
                    if let parse = error as? ServerSentEventParser.TooLarge {
                        observer.onError(HTTPClientError(.decodeError, message: "the event stream's \(parse)", phase: .responded))
                    } else {
                        observer.onError(error)
                    }
                }
            ), onHead: { head in
                if head.statusCode == 204 {
                    session.markNoContent()
                    return nil
                }
                let type = head.value(forHTTPHeaderField: "Content-Type")?.lowercased() ?? ""
                guard type.hasPrefix("text/event-stream") else {
                    return HTTPClientError(
                        .invalidResponse, message: "expected text/event-stream, got \(type.isEmpty ? "no content type" : type)",
                        statusCode: head.statusCode, url: head.url, headers: head.headers, phase: .responded
                    )
                }
                return nil
            })
        }
    }
}

/// What a Server-Sent Events stream remembers across its connections: the last event id, the
/// server's reconnection time, how many reconnects in a row, and when it started. It is also the
/// stream as the client's shutdown sees it (a live call): a wait to reconnect ends when the
/// shutdown begins.
// @unchecked Sendable: mutable state lives in one LockedState.
final class EventStreamSession: ClientCall, @unchecked Sendable {
    /// A connection that ended cleanly (reconnect), or a wait to reconnect that a shutdown ended.
    struct Ended: Error {}

    private struct State {
        var lastEventID: String?
        var retryMilliseconds: Int?
        var reconnectsInARow = 0
        var noContent = false
        var isShuttingDown = false
        /// Waits to reconnect in progress, told when the shutdown begins.
        var shutdownWaiters: [Int: @Sendable () -> Void] = [:]
        var nextWaiter = 0
    }

    let id: UInt64
    private let startedAt: Date
    private let state = LockedState<State>.make(State())

    init(id: UInt64, startedAt: Date) {
        self.id = id
        self.startedAt = startedAt
    }

    /// Fails with `Ended` when the client's shutdown begins (at once if it has); nothing else.
    var shutdownBegins: Observable<Void> {
        Observable.create { [state] observer in
            let token = state.withLock { state -> Int? in
                guard !state.isShuttingDown else { return nil }
                state.nextWaiter += 1
                state.shutdownWaiters[state.nextWaiter] = { observer.onError(Ended()) }
                return state.nextWaiter
            }
            guard let token else {
                observer.onError(Ended())
                return Disposables.create()
            }
            return Disposables.create {
                state.withLock { _ = $0.shutdownWaiters.removeValue(forKey: token) }
            }
        }
    }

    func clientIsShuttingDown() {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.isShuttingDown = true
            defer { state.shutdownWaiters = [:] }
            return Array(state.shutdownWaiters.values)
        }
        for waiter in waiters {
            waiter()
        }
    }

    /// A connection in flight is the stream call's to end; a wait ended when the shutdown began.
    func gracePeriodEnded() {
        clientIsShuttingDown()
    }

    var lastEventID: String? { state.withLock { $0.lastEventID } }
    var noContent: Bool { state.withLock { $0.noContent } }

    func markNoContent() {
        state.withLock { $0.noContent = true }
    }

    func update(lastEventID: String?, retry: Int?, delivered: Bool) {
        state.withLock { state in
            state.lastEventID = lastEventID
            if let retry { state.retryMilliseconds = retry }
            if delivered { state.reconnectsInARow = 0 }
        }
    }

    /// The seconds to wait before reconnecting after `failure`, or nil to stop.
    func reconnectWait(after failure: Error, policy: ReconnectPolicy, now: Date) -> TimeInterval? {
        let reconnectable: Bool
        var retryAfter: TimeInterval?
        if failure is Ended {
            reconnectable = true
        } else if let error = failure as? HTTPClientError {
            reconnectable = error.isWorthReconnecting && error.code != .invalidResponse
            retryAfter = error.retryAfter(now: Date())
        } else {
            reconnectable = false
        }
        guard reconnectable else { return nil }
        return state.withLock { state -> TimeInterval? in
            guard !state.noContent else { return nil }
            state.reconnectsInARow += 1
            return policy.wait(
                beforeReconnect: state.reconnectsInARow, serverDelay: state.retryMilliseconds.map { Double($0) / 1_000 },
                retryAfter: retryAfter, elapsed: now.timeIntervalSince(startedAt))
        }
    }
}
