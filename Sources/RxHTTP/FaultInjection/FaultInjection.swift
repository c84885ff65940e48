import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// A transport that makes another one fail on purpose — latency, refused and dropped connections,
/// time-outs, 503 and 429 storms, slow bodies — at a rate, from a seeded random source: to prove a
/// daemon's resilience in tests (virtual time) and in staging, as Polly's Simmy does for .NET.
///
/// ```swift
/// let faults = FaultInjection(wrapping: URLSessionTransport(), rules: [
///     FaultRule(.status(503, retryAfter: 2), rate: 0.05, pathPrefix: "/orders"),
///     FaultRule(.dropAfterSending, rate: 0.01),
///     FaultRule(.latency(0.3), rate: 0.2),
/// ], seed: 42)
/// let client = HTTPClient(baseURL: api, transport: faults)
/// faults.isEnabled = false   // switchable at run time
/// ```
///
/// Each request draws once per matching rule, in order: every `latency` rule that hits adds its
/// delay, and the first other rule that hits decides the request's fate (the rest are not drawn).
/// The same seed and the same order of requests give the same faults. Faults are what the network
/// would do, phases included: a refused connection sends nothing; a dropped one and a time-out
/// send the request through the wrapped transport first (the server acts on it); a status answers
/// without the server. WebSocket upgrades get the latency, refusals, drops (as a refused upgrade)
/// and statuses. `counts` says what was injected.
///
/// - Note: Thread-safe. Delays run on `scheduler` (a `TestScheduler` in tests); injected answers
///   never arrive inside the call that sent the request.
public final class FaultInjection: HTTPTransport, URLRequestForwarding {
    private struct State {
        var rules: [FaultRule]
        var isEnabled = true
        var counts: [String: Int] = [:]
        var requests = 0
    }

    /// What one request gets: the sum of its latencies and its one fault, if any.
    struct Decision: Equatable {
        var latency: TimeInterval = 0
        var fault: Fault?
    }

    private let base: any HTTPTransport
    private let random: RandomSource
    private let scheduler: SchedulerType
    private let state: LockedState<State>

    /// Wraps `base`.
    ///
    /// - Parameters:
    ///   - base: The transport that really sends.
    ///   - rules: The faults and their rates (see `FaultRule`).
    ///   - seed: Seeds the random source; nil draws from the system's generator.
    ///   - scheduler: Runs the delays (latency, slow bodies, time-outs); default a serial queue of
    ///     its own, never the global pool (whose threads blocked callers may hold).
    public init(
        wrapping base: any HTTPTransport,
        rules: [FaultRule],
        seed: UInt64? = nil,
        scheduler: SchedulerType = SerialDispatchQueueScheduler(internalSerialQueueName: "RxHTTP.FaultInjection.delays")
    ) {
        self.base = base
        self.random = seed.map(RandomSource.seeded) ?? .system
        self.scheduler = scheduler
        self.state = .make(State(rules: rules))
    }

    /// Whether faults are injected; when false every request goes through untouched.
    public var isEnabled: Bool {
        get { state.withLock { $0.isEnabled } }
        set { state.withLock { $0.isEnabled = newValue } }
    }

    /// The rules in force; replacing them takes effect for the next request.
    public var rules: [FaultRule] {
        get { state.withLock { $0.rules } }
        set { state.withLock { $0.rules = newValue } }
    }

    /// How many times each fault was injected, by `Fault.kind`.
    public var counts: [String: Int] {
        state.withLock { $0.counts }
    }

    /// How many requests went through this transport.
    public var requestCount: Int {
        state.withLock { $0.requests }
    }

    /// Draws the fate of `request` (one draw per matching rule, in order).
    func decide(_ request: HTTPTransportRequest) -> Decision {
        state.withLock { state in
            state.requests += 1
            guard state.isEnabled else { return Decision() }
            var decision = Decision()
            for rule in state.rules where rule.matches(request) {
                guard random.nextUnitInterval() < rule.rate else { continue }
                state.counts[rule.fault.kind, default: 0] += 1
                if case .latency(let seconds) = rule.fault {
                    decision.latency += seconds
                } else {
                    decision.fault = rule.fault
                    break
                }
            }
            return decision
        }
    }

    // MARK: HTTPTransport

    public func send(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        let exchange = FaultExchange(completion)
        let decision = decide(request)
        exchange.after(decision.latency, on: scheduler) { [self, base, scheduler] in
            switch decision.fault {
            case nil:
                exchange.hold(base.send(request, options: options) { exchange.finish($0) })
            case .slowBody(let rate)?:
                exchange.hold(base.send(request, options: options) { result in
                    let size = (try? result.get())?.body.count ?? 0
                    exchange.after(Double(size) / Double(rate), on: scheduler) { exchange.finish(result) }
                })
            case let fault?:
                injectFailure(fault, request: request, exchange: exchange, sendFirst: { completion in
                    base.send(request, options: options) { _ in completion() }
                }, answer: { .success($0) })
            }
        }
        return exchange
    }

    public func stream(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        let exchange = FaultExchange<HTTPStreamPart>(receive, isLast: { $0 == .end })
        let decision = decide(request)
        exchange.after(decision.latency, on: scheduler) { [self, base, scheduler] in
            switch decision.fault {
            case nil:
                exchange.hold(base.stream(request, options: options) { exchange.pass($0) })
            case .slowBody(let rate)?:
                // Each chunk leaves `size / rate` seconds after the one before it.
                let pacer = StreamPacer(rate: rate, scheduler: scheduler)
                exchange.hold(base.stream(request, options: options) { part in
                    pacer.deliver(part) { exchange.pass(part) }
                })
            case let fault?:
                injectFailure(fault, request: request, exchange: exchange, sendFirst: { completion in
                    base.stream(request, options: options) { part in
                        if case .success(.body) = part { return }
                        completion()
                    }
                }, answer: { response in
                    exchange.pass(.success(.head(HTTPResponseHead(statusCode: response.statusCode, headers: response.headers, url: response.url))))
                    return .success(.end)
                })
            }
        }
        return exchange
    }

    public func upgrade(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        let exchange = FaultExchange(completion)
        let decision = decide(request)
        exchange.after(decision.latency, on: scheduler) { [self, base] in
            switch decision.fault {
            case nil, .slowBody?:
                exchange.hold(base.upgrade(request, options: options) { exchange.finish($0) })
            case let fault?:
                injectFailure(fault, request: request, exchange: exchange, sendFirst: { completion in
                    base.upgrade(request, options: options) { result in
                        if case .success(.switched(_, let connection)) = result { connection.close() }
                        completion()
                    }
                }, answer: { .success(.answered($0)) })
            }
        }
        return exchange
    }

    public func shutdown() {
        base.shutdown()
    }

    public var shutsDownWithClient: Bool {
        base.shutsDownWithClient
    }

    /// Ends `exchange` with `fault`: at once for a refusal and a status, after the wrapped
    /// transport sent the request for a drop and a time-out (the server acts on it).
    private func injectFailure<Value: Sendable>(
        _ fault: Fault,
        request: HTTPTransportRequest,
        exchange: FaultExchange<Value>,
        sendFirst: @escaping @Sendable (@escaping @Sendable () -> Void) -> Disposable,
        answer: @escaping @Sendable (HTTPResponse) -> Result<Value, any Error>
    ) {
        let url = request.url
        switch fault {
        case .refuseConnection:
            exchange.after(0, on: scheduler) {
                exchange.finish(.failure(HTTPClientError(.transport, message: "injected fault: connection refused", url: url, phase: .notSent)))
            }
        case .status(let code, let retryAfter):
            var headers = ["Content-Length": "0"]
            if let retryAfter { headers["Retry-After"] = String(Int(retryAfter.rounded(.up))) }
            let response = HTTPResponse(statusCode: code, headers: headers, body: Data(), url: url)
            exchange.after(0, on: scheduler) { exchange.finish(answer(response)) }
        case .dropAfterSending:
            exchange.hold(sendFirst {
                exchange.finish(.failure(HTTPClientError(
                    .transport, message: "injected fault: the connection dropped after the request was sent", url: url, phase: .sentWithoutResponse
                )))
            })
        case .timeout:
            let timeout = TimeoutBounds.clamped(request.timeoutInterval) ?? TimeoutBounds.defaultTimeout
            // The server gets the request; its answer is lost, and the wait runs out.
            exchange.hold(sendFirst {})
            exchange.after(timeout, on: scheduler) {
                exchange.finish(.failure(HTTPClientError(
                    .timedOut, message: "injected fault: no answer within \(timeout) s", url: url, phase: .sentWithoutResponse
                )))
            }
        case .latency, .slowBody:
            exchange.finish(.failure(HTTPClientError(.transport, message: "injected fault", url: url, phase: .notSent)))
        }
    }
}
