import Foundation
@_spi(RxNetworkKitInternals) import RxCore
import RxHTTP

/// A transport for unit tests: answers from canned `StubResponse`s, records what was sent, and
/// runs delays on a `SchedulerType` so that a `TestScheduler` drives them in virtual time.
///
/// Stubs are matched newest first; a request matching none gets `fallback` (a 404 by default).
/// Predicates and `sentRequests` see each request as a Foundation `URLRequest` (a field sent on
/// several lines reads as one value joined with ", "); `sentTransportRequests` gives the requests
/// as the transport received them.
/// A delayed answer longer than the request's `timeoutInterval` ends in `.timedOut` at the
/// time-out, as the real transport does. Without a scheduler, delays run in real time on a
/// global queue; a zero delay answers during `send`.
///
/// ```swift
/// let stub = StubTransport(scheduler: testScheduler)
/// stub.stub(path: "/users/42", with: .json(#"{"id":42}"#, delay: .seconds(1)))
/// let client = HTTPClient(baseURL: URL(string: "https://api.test")!, transport: stub)
/// ```
///
/// - Note: Thread-safe.
public final class StubTransport: HTTPTransport, URLRequestForwarding {
    private struct Rule {
        let matches: @Sendable (URLRequest) -> Bool
        let respond: @Sendable (URLRequest) -> StubResponse
    }

    private struct WebSocketRule {
        let matches: @Sendable (HTTPTransportRequest) -> Bool
        let server: StubWebSocketServer
    }

    private struct State {
        var rules: [Rule] = []
        var webSockets: [WebSocketRule] = []
        var sent: [HTTPTransportRequest] = []
        var cancelledCount = 0
    }

    private let scheduler: (any SchedulerType)?
    private let fallback: StubResponse
    private let state = LockedState<State>.make(State())

    /// Creates a stub transport.
    ///
    /// - Parameters:
    ///   - scheduler: Runs delays and time-outs (a `TestScheduler` in tests); nil uses real time.
    ///   - fallback: The answer to requests no stub matches; default a 404.
    public init(scheduler: (any SchedulerType)? = nil, fallback: StubResponse = .status(404)) {
        self.scheduler = scheduler
        self.fallback = fallback
    }

    /// Answers requests whose URL path (percent-decoded) is `path`, and whose method is `method`
    /// if given.
    public func stub(method: HTTPMethod? = nil, path: String, with response: StubResponse) {
        stub(where: { request in
            (method == nil || request.httpMethod == method?.rawValue) && request.url?.path == path
        }, with: response)
    }

    /// Answers requests for which `predicate` is true.
    public func stub(where predicate: @escaping @Sendable (URLRequest) -> Bool, with response: StubResponse) {
        stub(where: predicate) { _ in response }
    }

    /// Answers successive requests for `path` (and `method`, if given) with successive `responses`;
    /// once they are used up, the last one repeats (MockWebServer's `enqueue`, and
    /// `LoopbackHTTPServer.route(_:_:responses:)`): `[.status(503), .json("{}")]` fails once, then
    /// succeeds. An empty list answers with the fallback.
    public func stub(method: HTTPMethod? = nil, path: String, responses: [StubResponse]) {
        stub(where: { request in
            (method == nil || request.httpMethod == method?.rawValue) && request.url?.path == path
        }, responses: responses)
    }

    /// Answers successive requests for which `predicate` is true with successive `responses`, the
    /// last one repeating.
    public func stub(where predicate: @escaping @Sendable (URLRequest) -> Bool, responses: [StubResponse]) {
        let queue = LockedState<[StubResponse]>.make(responses)
        let fallback = fallback
        stub(where: predicate) { _ in
            queue.withLock { queue in
                guard let first = queue.first else { return fallback }
                if queue.count > 1 { queue.removeFirst() }
                return first
            }
        }
    }

    /// Answers requests for which `predicate` is true with what `respond` makes of them.
    public func stub(
        where predicate: @escaping @Sendable (URLRequest) -> Bool,
        respond: @escaping @Sendable (URLRequest) -> StubResponse
    ) {
        state.withLock { $0.rules.append(Rule(matches: predicate, respond: respond)) }
    }

    /// Accepts WebSocket handshakes for `path` (percent-decoded) and returns the server end of
    /// those connections (see `StubWebSocketServer`). Newer WebSocket stubs win over older ones;
    /// while the server is not accepting, the handshake gets the HTTP stubs' answer.
    ///
    /// - Parameters:
    ///   - path: The path the handshake must ask for, percent-decoded.
    ///   - selectedProtocol: The subprotocol the 101 selects; nil selects none.
    public func stubWebSocket(path: String, selectedProtocol: String? = nil) -> StubWebSocketServer {
        let server = StubWebSocketServer(selectedProtocol: selectedProtocol, scheduler: scheduler)
        state.withLock { $0.webSockets.append(WebSocketRule(matches: { $0.url.path == path }, server: server)) }
        return server
    }

    /// Every request sent so far, in order, as Foundation requests.
    public var sentRequests: [URLRequest] {
        state.withLock { $0.sent }.map(\.urlRequest)
    }

    /// Every request sent so far, in order, as the transport received them: header lines in order,
    /// repeated fields kept.
    public var sentTransportRequests: [HTTPTransportRequest] {
        state.withLock { $0.sent }
    }

    /// How many exchanges were cancelled before they answered.
    public var cancelledCount: Int {
        state.withLock { $0.cancelledCount }
    }

    /// Answers `request` from the stubs; a stubbed body larger than `options.maxResponseBodySize`
    /// fails with `.responseTooLarge`, as the real transport does. Redirects are not followed (a
    /// stubbed 3xx is the response).
    public func send(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        let rules = state.withLock { state -> [Rule] in
            state.sent.append(request)
            return state.rules
        }
        let foundation = request.urlRequest
        let rule = rules.last { $0.matches(foundation) }
        let stub = rule?.respond(foundation) ?? fallback
        var result: Result<HTTPResponse, any Error> = stub.result.map { response in
            HTTPResponse(statusCode: response.statusCode, headers: response.headers, body: response.body, url: response.url ?? request.url)
        }.mapError { $0 }
        if case .success(let response) = result, response.body.count > options.maxResponseBodySize {
            result = .failure(HTTPClientError(
                .responseTooLarge, message: "the response body passed the limit of \(options.maxResponseBodySize) bytes",
                statusCode: response.statusCode, url: request.url, headers: response.headers, phase: .responded
            ))
        }
        var delay = stub.delay
        let timeout = RxTimeInterval.seconds(request.timeoutInterval)
        if request.timeoutInterval > 0, timeout < delay {
            delay = timeout
            result = .failure(HTTPClientError(
                .timedOut, message: "stubbed response later than the time-out", url: request.url, phase: .sentWithoutResponse
            ))
        }
        let exchange = StubExchange(completion: completion) { [state] in
            state.withLock { $0.cancelledCount += 1 }
        }
        let outcome = result
        if delay <= .zero {
            exchange.complete(outcome)
        } else if let scheduler {
            exchange.setTimer(scheduler.scheduleRelative((), dueTime: delay) { _ in
                exchange.complete(outcome)
                return Disposables.create()
            })
        } else {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay.dispatchInterval) {
                exchange.complete(outcome)
            }
        }
        return exchange
    }
}

extension StubTransport {
    /// Switches protocols for a request that a WebSocket stub accepts (recorded in `sentRequests`);
    /// otherwise answers it from the HTTP stubs as `.answered` (with their delays and time-outs).
    public func upgrade(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        let servers = state.withLock { $0.webSockets.filter { $0.matches(request) }.map(\.server) }
        var accepted: (HTTPResponseHead, any UpgradedConnection)?
        for server in servers.reversed() where accepted == nil {
            accepted = server.accept(request)
        }
        if let (head, connection) = accepted {
            state.withLock { $0.sent.append(request) }
            let exchange = StubExchange(completion: { _ in }) {}
            let deliver: @Sendable () -> Void = {
                guard exchange.claim() else {
                    connection.close()
                    return
                }
                completion(.success(.switched(head, connection)))
            }
            if let scheduler {
                exchange.setTimer(scheduler.schedule(()) { _ in
                    deliver()
                    return Disposables.create()
                })
            } else {
                DispatchQueue.global().async(execute: deliver)
            }
            return exchange
        }
        return send(request, options: options) { result in
            completion(result.map { .answered($0) })
        }
    }
}

/// One answer in flight: completes once, or never once disposed.
// @unchecked Sendable: mutable state lives in one LockedState; the closures are immutable.
private final class StubExchange: Disposable, @unchecked Sendable {
    private struct State {
        var isFinished = false
        var timer: Disposable?
    }

    private let completion: @Sendable (Result<HTTPResponse, any Error>) -> Void
    private let onCancel: @Sendable () -> Void
    private let state = LockedState<State>.make(State())

    init(completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void, onCancel: @escaping @Sendable () -> Void) {
        self.completion = completion
        self.onCancel = onCancel
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    func setTimer(_ timer: Disposable) {
        let stale = state.withLock { state -> Disposable? in
            if state.isFinished { return timer }
            state.timer = timer
            return nil
        }
        stale?.dispose()
    }

    func complete(_ result: Result<HTTPResponse, any Error>) {
        guard finish() else { return }
        completion(result)
    }

    /// Claims the exchange for an answer made elsewhere; false once it finished or was disposed.
    func claim() -> Bool {
        finish()
    }

    func dispose() {
        guard finish() else { return }
        onCancel()
    }

    private func finish() -> Bool {
        let claimed = state.withLock { state -> (Bool, Disposable?) in
            guard !state.isFinished else { return (false, nil) }
            state.isFinished = true
            defer { state.timer = nil }
            return (true, state.timer)
        }
        claimed.1?.dispose()
        return claimed.0
    }
}
