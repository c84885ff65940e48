import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One call of an `HTTPClient`, from its first attempt to its one delivery: what interceptors see of
/// it, and the object that runs its `CallStateMachine`.
///
/// Each event (an interceptor's decision, the transport's answer, a timer, a cancel) takes the lock
/// once, moves the machine, and runs the action it returns after the lock. The answer goes through
/// the interceptors on the thread that finished the exchange; then one hop to the
/// client's callback queue, where the response is decoded and the completion runs, exactly once,
/// never synchronously inside the call that made the request.
///
/// - Note: Thread-safe. Interceptors may read every property from any thread.
// @unchecked Sendable: mutable state lives in `core` (one LockedState); the completion closures it
// holds are called once, after the lock, by the transition that finishes the call.
public final class HTTPCall: @unchecked Sendable {
    /// What a call sends and how it may be repeated, fixed when it is made.
    struct Plan {
        var request: HTTPTransportRequest
        var method: HTTPMethod
        var path: String
        var requestName: String
        var authorizationType: AuthorizationType?
        var declaresAuthorization: Bool
        var bypassesSuspension: Bool
        var policy: RetryPolicy
        var idempotency: Idempotency
        var requiresAuthentication: Bool
        var cachePolicy: CachePolicy
        /// The request's host: cooldown, budget, breaker, concurrency.
        var gate: HostGate?
        /// Where a streamed body goes; nil for an ordinary, buffered call.
        var stream: StreamPump?
        /// Where a WebSocket's opening handshake leaves its connection; nil unless the call asks
        /// the server to switch protocols (then only 101 is accepted).
        var upgrade: WebSocketUpgradeSlot?
        /// Why the request could not be built, for a call that only reports it: it sends nothing,
        /// and `request` holds no more than the method.
        var refusal: HTTPClientError?
    }

    /// Who gets the result: the caller's decoding and completion, in one object (closures around
    /// them cost an allocation each, and one more for the decoded value's delivery).
    final class Receiver<Output>: Receiving {
        private let decode: (HTTPResponse, ResponseDecodingContext) throws -> Output
        private let completion: (Result<Output, HTTPClientError>) -> Void

        init(
            decode: @escaping (HTTPResponse, ResponseDecodingContext) throws -> Output,
            completion: @escaping (Result<Output, HTTPClientError>) -> Void
        ) {
            self.decode = decode
            self.completion = completion
        }

        func deliver(_ response: HTTPResponse, context: ResponseDecodingContext, beforeDelivery: () -> Void) -> HTTPClientError? {
            let value: Output
            do {
                value = try decode(response, context)
            } catch let error as HTTPClientError {
                return error
            } catch {
                return HTTPClientError(
                    .decodeError, message: HTTPClientError.describe(error),
                    statusCode: response.statusCode, body: response.body, url: response.url, underlying: error
                )
            }
            beforeDelivery()
            completion(.success(value))
            return nil
        }

        func fail(_ error: HTTPClientError) {
            completion(.failure(error))
        }
    }

    struct Core {
        var machine: CallStateMachine
        /// Taken by the delivery: the completion runs once.
        var receiver: (any Receiving)?
        var values: [ObjectIdentifier: any Sendable] = [:]
        var redactedURL: String?
    }

    /// The call's request id: the `#N` of log lines and events, unique within the client.
    public let id: UInt64
    /// When the call was made, on the client's clock.
    public let startedAt: Date
    /// When everything must be over, if the retry policy has a deadline.
    public let deadline: Date?

    let client: HTTPClient
    let plan: Plan
    let interceptors: [any HTTPInterceptor]
    /// For each interceptor, its fast path if it has one (the built-ins).
    let immediates: [(any ImmediateInterceptor)?]
    /// The configuration's interceptors and the plugins', told of every attempt's and the call's end.
    let observers: [any HTTPInterceptor]
    /// Where the plugins' interceptor stands in `interceptors`, if the client has plugins.
    let pluginStep: Int?
    let core: LockedState<Core>

    init(client: HTTPClient, id: UInt64, plan: consuming Plan, chain: InterceptorChain, receiver: any Receiving) {
        self.client = client
        self.id = id
        self.interceptors = chain.interceptors
        self.immediates = chain.immediates
        self.observers = chain.observers
        self.pluginStep = chain.pluginStep
        let now = client.clock.now
        self.startedAt = now
        self.deadline = plan.policy.deadline.map { now.addingTimeInterval($0) }
        self.core = .make(Core(
            machine: CallStateMachine(request: plan.request, interceptorCount: chain.interceptors.count), receiver: receiver
        ))
        // Stored last, and consumed: the plan (a dozen fields) is moved in, not copied.
        self.plan = plan
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    // MARK: What interceptors see

    /// The method.
    public var method: HTTPMethod { plan.method }
    /// The URL the call sends to. The real URL, secrets included: never log it (events and the
    /// logger show it redacted).
    public var url: URL? { plan.refusal == nil ? plan.request.url : plan.refusal?.url }
    /// The name of the request's type (`GetUser`), or `requestObject` for path-based calls.
    public var requestName: String { plan.requestName }
    /// Whether the request may be sent again after it reached the server.
    public var idempotency: Idempotency { plan.idempotency }
    /// Whether the client's authenticator signs this call.
    public var requiresAuthentication: Bool { plan.requiresAuthentication }
    /// The number of the attempt being prepared or answered (or the latest one): 1 for the first, and
    /// one more for each retry and replay.
    public var attempt: Int {
        core.withLock { max(1, $0.machine.latestAttempt) }
    }
    /// How many times the request went to the transport so far.
    public var sends: Int { core.withLock { $0.machine.sends } }
    /// How many attempts were replays (after an unauthorized answer): not counted by the retry policy.
    public var replays: Int { core.withLock { $0.machine.replays } }
    /// The client's clock (`Configuration.scheduler`): virtual in tests.
    public var now: Date { client.clock.now }
    /// Seconds left before the deadline; nil without one.
    public var timeLeft: TimeInterval? { deadline.map { $0.timeIntervalSince(client.clock.now) } }
    /// The retry policy of this call: the request's own if it states one, else the client's.
    public var retryPolicy: RetryPolicy { plan.policy }

    /// A value an interceptor keeps on this call (per-call state; the interceptor itself is shared).
    public func value<Value: Sendable>(for key: HTTPCallKey<Value>) -> Value? {
        core.withLock { $0.values[ObjectIdentifier(key)] as? Value }
    }

    /// Keeps `value` on this call under `key` (nil removes it).
    public func setValue<Value: Sendable>(_ value: Value?, for key: HTTPCallKey<Value>) {
        core.withLock { $0.values[ObjectIdentifier(key)] = value }
    }

    /// Removes and returns the value under `key`.
    public func takeValue<Value: Sendable>(for key: HTTPCallKey<Value>) -> Value? {
        core.withLock { $0.values.removeValue(forKey: ObjectIdentifier(key)) as? Value }
    }

    /// What plugins know of the call's current attempt.
    var requestInfo: HTTPRequestInfo {
        HTTPRequestInfo(
            id: id, method: plan.method, path: plan.path, authorizationType: plan.authorizationType,
            declaresAuthorization: plan.declaresAuthorization, requestName: plan.requestName, callID: id,
            attempt: attempt
        )
    }

    /// Tells the client's events that the call waits, and why (an interceptor holding an attempt).
    public func noteHeld(_ reason: HTTPClientEvent.HoldReason) {
        emit(.held(reason))
    }

    /// Whether the attempt being answered went to the transport (false for an answer or a refusal
    /// of an interceptor, or a request that failed its checks before sending).
    var attemptReachedTransport: Bool {
        core.withLock { $0.machine.isAnsweringATransmission }
    }

    // MARK: Start

    /// Registers with the client, arms the deadline and prepares the first attempt; for a request
    /// that could not be built, reports its error on the callback context (a cancel before wins).
    func start() {
        if let refusal = plan.refusal {
            emit(.started)
            client.runOnCallbackContext { [self] in conclude(inline: true) { $0.refuse(refusal) } }
            return
        }
        guard client.admit(self) else {
            endEarly { $0.terminate(.shutdown) }
            return
        }
        emit(.started)
        if let deadline = plan.policy.deadline {
            let timer = client.clock.scheduleRelative((), dueTime: .seconds(deadline)) { [weak self] _ in
                self?.endEarly { $0.terminate(.deadline) }
                return Disposables.create()
            }
            keep { $0.deadlineArmed(timer) }
        }
        step { $0.start() }
    }

    // MARK: Ending from outside

    /// Cancels the call: whatever it holds is released and it fails with `.cancelled`; nothing once
    /// finished.
    func cancel() {
        endEarly { $0.terminate(.cancelled) }
    }

    var isCancelled: Bool {
        core.withLock { $0.machine.isFinished && $0.receiver == nil && $0.machine.cancelled }
    }

    /// The client began shutting down: a call not yet sent, or waiting to retry, fails with
    /// `.shutdown`; one in flight finishes without retrying; an endless stream (an event stream)
    /// ends cleanly after what it received.
    func clientIsShuttingDown() {
        endEarly { $0.clientIsShuttingDown() }
        plan.stream?.clientIsShuttingDown()
    }

    /// The shutdown's grace period ended: whatever is left fails with `.shutdown`.
    func gracePeriodEnded() {
        endEarly { $0.gracePeriodEnded() }
    }

    /// A delivered stream's body ended, failed, or its reader gave up.
    func streamEnded(failure: HTTPClientError?) {
        guard let end = core.withLock({ $0.machine.streamEnded(failure: failure) }) else { return }
        end.release.forEach { $0.dispose() }
        streamEnded(end.transmission, failure: end.failure)
    }

    // MARK: Events into the machine
    //
    // Each moves the machine under the lock, then runs what it says outside it; one per family of
    // actions the machine returns.

    /// An event that moves an attempt along (to an interceptor, the transport, or back out).
    ///
    /// - Parameter inline: The event comes from a transport that calls back on the client's
    ///   callback queue: a delivery may run right here instead of hopping.
    func step(inline: Bool = false, _ event: (inout CallStateMachine) -> CallStateMachine.Step) {
        run(core.withLock { event(&$0.machine) }, inline: inline)
    }

    /// An event that concludes an answer (or a refused request): deliver, fail, wait, or replay.
    func conclude(inline: Bool = false, _ event: (inout CallStateMachine) -> CallStateMachine.Conclusion) {
        run(core.withLock { event(&$0.machine) }, inline: inline)
    }

    /// An event that may end the call before its answer (a cancel, the deadline, a shutdown).
    func endEarly(_ event: (inout CallStateMachine) -> CallStateMachine.Ending?) {
        if let ending = core.withLock({ event(&$0.machine) }) {
            end(ending)
        }
    }

    /// An event that hands the machine something to keep (a timer, a hold, an exchange); what it
    /// does not keep, because the moment has passed, is disposed.
    func keep(_ event: (inout CallStateMachine) -> Disposable?) {
        core.withLock { event(&$0.machine) }?.dispose()
    }

    private func run(_ step: CallStateMachine.Step, inline: Bool) {
        switch step {
        case .none:
            return
        case .prepare(let attempt, let index, let release):
            release.forEach { $0.dispose() }
            prepare(attempt, step: index)
        case .send(let attempt, let release):
            release.forEach { $0.dispose() }
            send(attempt)
        case .answer(let attempt, let transmission, let result):
            answer(attempt, transmission, result, inline: inline)
        case .releaseLate(let steps):
            let error = cancelledError()
            for step in steps.reversed() {
                _ = interceptors[step].didReceive(.failure(error), for: self)
            }
        }
    }

    private func run(_ conclusion: CallStateMachine.Conclusion, inline: Bool) {
        switch conclusion {
        case .none:
            return
        case .deliver(let response, let release):
            release.forEach { $0.dispose() }
            deliver(response, inline: inline)
        case .open(let response):
            deliver(response, inline: inline)
        case .fail(let error, let release):
            release.forEach { $0.dispose() }
            fail(error, inline: inline)
        case .wait(let next, let delay, let error, let release):
            release.forEach { $0.dispose() }
            wait(next: next, delay: delay, after: error)
        case .replay(let next):
            run(next, inline: inline)
        }
    }

    /// The wait before attempt `next` ended by `trigger`: tell it, then take the next attempt's
    /// first step.
    private func waitEnded(next: Int, trigger: RetryTrigger) {
        let now = client.clock.now
        guard let resumption = core.withLock({ $0.machine.waitEnded(next: next, trigger: trigger, at: now) }) else { return }
        emit(.waitEnded(trigger: resumption.trigger, waited: resumption.waited))
        if let lastError = resumption.lastError {
            plan.policy.onRetry?(RetryNotification(
                attempt: next, error: lastError, delay: resumption.delay, trigger: resumption.trigger, waited: resumption.waited
            ))
        }
        run(resumption.next, inline: false)
    }

    // MARK: Preparing

    /// Asks interceptor `step` about `attempt`, and the ones after it that decide at once.
    private func prepare(_ attempt: CallStateMachine.Attempt, step first: Int) {
        let number = attempt.number
        // The built-ins usually decide at once: ask them so, with no completion to allocate and one
        // lock for all of them, until one must wait or refuses.
        var step = first
        while step < interceptors.count, let immediate = immediates[step] {
            guard let decision = immediate.prepareAtOnce(attempt.shared.value, for: self) else { break }
            guard case .pass = decision else {
                let passed = first..<step
                let decided = step
                self.step { machine in
                    if !passed.isEmpty, case .releaseLate(let steps) = machine.passed(passed, attempt: number) {
                        return .releaseLate(steps: steps)
                    }
                    guard case .decide(let preparation) = decision else { return .none }
                    return machine.prepared(step: decided, attempt: number, CallStateMachine.Preparation(preparation))
                }
                return
            }
            step += 1
        }
        if step > first {
            let passed = first..<step
            self.step { $0.passed(passed, attempt: number) }
            return
        }
        let asked = step
        let hold = interceptors[asked].prepare(attempt.shared.value, for: self) { [self] preparation in
            self.step { $0.prepared(step: asked, attempt: number, CallStateMachine.Preparation(preparation)) }
        }
        if let hold {
            keep { $0.holding(step: asked, attempt: number, hold) }
        }
    }

    // MARK: Waiting

    /// Waits `delay` seconds, or until the host is reachable again, whichever comes first.
    private func wait(next: Int, delay: TimeInterval, after error: HTTPClientError) {
        emit(.retryScheduled(nextAttempt: next, delay: delay, after: error.code, statusCode: error.statusCode))
        let clock = client.clock
        guard delay > 0 else {
            waitEnded(next: next, trigger: .immediate)
            return
        }
        let timer = clock.scheduleRelative((), dueTime: .seconds(delay)) { [weak self] _ in
            self?.waitEnded(next: next, trigger: .timer)
            return Disposables.create()
        }
        var recovery: Disposable?
        if plan.policy.retriesWhenReachable, let reachability = client.reachability(for: plan.request.url) {
            // May fire at once, while registering: the machine takes the first ending only.
            recovery = reachability.whenReachableAgain { [weak self] in
                self?.waitEnded(next: next, trigger: .reachability)
            }
        }
        keep { $0.waitArmed(next: next, timer: timer, recovery: recovery) }
    }
}

/// The caller's end of a call (`HTTPCall.Receiver`), erased to what the call needs of it.
protocol Receiving: AnyObject {
    /// Decodes an accepted response; on success runs `beforeDelivery` (the call's end for observers
    /// and events), then the completion, and returns nil; else returns the decoding failure.
    func deliver(_ response: HTTPResponse, context: ResponseDecodingContext, beforeDelivery: () -> Void) -> HTTPClientError?
    /// Fails the completion with `error`.
    func fail(_ error: HTTPClientError)
}

/// The key of a value an interceptor keeps on a call (`HTTPCall.value(for:)`): its identity is the
/// key, so make one per kind of value and keep it (a `static let`).
///
/// - Note: `Sendable`.
public final class HTTPCallKey<Value: Sendable>: Sendable {
    /// A name for debugging.
    public let name: String

    /// Creates a key.
    public init(_ name: String) {
        self.name = name
    }
}

extension CallStateMachine.Preparation {
    init(_ preparation: HTTPInterceptorPreparation) {
        switch preparation {
        case .proceed(let request): self = .proceed(request)
        case .answer(let response): self = .answer(response)
        case .fail(let error): self = .fail(error)
        }
    }
}
