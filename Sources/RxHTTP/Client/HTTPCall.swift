import Foundation
import RxCore

/// One call of the client, from its first attempt to its one delivery: the client's single retry
/// loop (a loop around one send, asking `RetryPolicy.decide` after each failed attempt).
///
/// Phases: `queued` (built; maybe held by a suspended client) → `sending(n)` (plugins ran, the
/// transport is running attempt n) → `receiving(n)` (the transport answered; plugins and decoding
/// run) → either `finished`, or `waiting` (between attempts: a timer and the host's reachability
/// race to end the wait, the first wins) → `queued` again. Any phase but `finished` can be
/// terminated: cancelled by the caller, timed out by the deadline, stopped by a shutdown.
///
/// Guarantees: the completion runs exactly once, on the client's callback queue, never
/// synchronously inside the call that made the request; plugins that saw `willSend` see exactly
/// one `didReceive` for that attempt; the request (and its `Idempotency-Key`) is built once and
/// every attempt sends it again; the transport may answer before its `send` returns, and the
/// exchange it returns is then not kept (it holds this call through its completion).
// @unchecked Sendable: mutable state lives in one LockedState; the other properties are immutable.
final class HTTPCall<Output>: ClientCall, CancellableCall, @unchecked Sendable {
    enum Phase: Equatable {
        case queued
        case admitting(attempt: Int)
        case authenticating(attempt: Int)
        case sending(attempt: Int)
        case receiving(attempt: Int)
        case waiting(generation: Int)
        case finished
    }

    typealias Decode = (HTTPResponse, ResponseDecodingContext) throws -> Output
    typealias Completion = (Result<Output, HTTPClientError>) -> Void

    struct State {
        var phase = Phase.queued
        var attempts = 0
        var generation = 0
        var transportTask: Disposable?
        var sentRequest: URLRequest?
        var sentInfo: HTTPRequestInfo?
        var pluginsAwaitReceive = false
        var wait: Disposable?
        var waitStarted = Date.distantPast
        /// When the current attempt went to the transport.
        var attemptStarted = Date.distantPast
        /// The status of the last answer, for the completion event.
        var lastStatus: Int?
        /// The redacted URL, built for the first event and reused.
        var redactedURL: String?
        var plannedDelay: TimeInterval = 0
        var deadlineTimer: Disposable?
        var lastError: HTTPClientError?
        var wasCancelled = false
        /// What the current attempt is signed with, if the call is authenticated.
        var ticket: AuthenticationTicket?
        /// The pending wait for a ticket.
        var ticketWait: Disposable?
        /// Replays after an unauthorized answer (at most one); not counted against the policy.
        var replays = 0
        /// The refused ticket a replay is waiting to replace.
        var refusedTicket: AuthenticationTicket?
        /// How many times the request actually went to the transport.
        var sends = 0
        /// The host gate's slot held by the current attempt.
        var slot: HostGate.Slot?
        /// The pending admission (a cooldown, a queue place).
        var admissionWait: Disposable?
        var decode: Decode?
        var completion: Completion?
    }

    /// What a call sends and how it may be repeated.
    struct Plan {
        var request: URLRequest
        var method: HTTPMethod
        var path: String
        var requestName: String
        var authorizationType: AuthorizationType?
        var declaresAuthorization: Bool
        var timeout: TimeInterval
        var bypassesSuspension: Bool
        var policy: RetryPolicy
        var idempotency: Idempotency
        /// Signs every attempt, when the request requires authentication.
        var authenticator: (any Authenticator)?
        /// The request's host: cooldown, budget, breaker, concurrency.
        var gate: HostGate?
        /// Where a streamed body goes; nil for an ordinary, buffered call (which ends with the
        /// head for a stream: the body then flows through the pump).
        var stream: StreamPump?
    }

    let id: UInt64
    let client: HTTPClient
    let plan: Plan
    /// The scheduler time by which everything must be over, if the policy has a deadline.
    let deadlineAt: Date?
    /// When the call was made, on the policy's scheduler.
    let startedAt: Date
    let state: LockedState<State>

    init(client: HTTPClient, id: UInt64, plan: Plan, decode: @escaping Decode, completion: @escaping Completion) {
        self.client = client
        self.id = id
        self.plan = plan
        let now = plan.policy.scheduler.now
        self.startedAt = now
        self.deadlineAt = plan.policy.deadline.map { now.addingTimeInterval($0) }
        self.state = .make(State(decode: decode, completion: completion))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var isCancelled: Bool {
        state.withLock { $0.wasCancelled }
    }

    var retryPolicy: RetryPolicy { plan.policy }

    // MARK: Start and attempts

    /// Registers with the client, arms the deadline and queues the first attempt.
    func start() {
        guard client.admit(self) else {
            refuse(HTTPClientError(.shutdown, message: "the client is shutting down", url: plan.request.url, phase: .notSent))
            return
        }
        emit(.started)
        if let deadline = retryPolicy.deadline {
            let timer = retryPolicy.scheduler.scheduleRelative((), dueTime: .seconds(deadline)) { [weak self] _ in
                self?.deadlinePassed()
                return Disposables.create()
            }
            let stale = state.withLock { state -> Disposable? in
                guard state.phase != .finished else { return timer }
                state.deadlineTimer = timer
                return nil
            }
            stale?.dispose()
        }
        if client.enqueue(self, bypassesSuspension: plan.bypassesSuspension) {
            emit(.held(.suspended))
        }
    }

    /// Starts the next attempt: a ticket from the authenticator if the request needs one, then the
    /// send. Does nothing unless queued; once the client is shutting down, fails with `.shutdown`.
    func transmit() {
        guard !client.isShuttingDown else {
            clientIsShuttingDown()
            return
        }
        let attempt = state.withLock { state -> Int? in
            guard state.phase == .queued else { return nil }
            state.attempts += 1
            state.phase = .admitting(attempt: state.attempts)
            return state.attempts
        }
        guard let attempt else { return }
        admit(attempt)
    }

    /// Asks the host's gate to let `attempt` through (it may wait out a cooldown or a queue).
    func admit(_ attempt: Int) {
        guard let gate = plan.gate else {
            admitted(.granted(HostGate.Slot(holdsConcurrency: false, isTrial: false)), attempt: attempt, gate: nil)
            return
        }
        let wait = gate.admit(
            bypassesQueue: plan.bypassesSuspension, deadlineAt: deadlineAt, scheduler: retryPolicy.scheduler,
            onHold: { [weak self] reason in self?.emit(.held(reason)) }
        ) { [weak self] admission in
            self?.admitted(admission, attempt: attempt, gate: gate)
        }
        let keep = state.withLock { state -> Bool in
            guard state.phase == .admitting(attempt: attempt) else { return false }
            state.admissionWait = wait
            return true
        }
        if !keep {
            wait.dispose()
        }
    }

    func admitted(_ admission: HostGate.Admission, attempt: Int, gate: HostGate?) {
        let authenticated = plan.authenticator != nil
        let claim = state.withLock { state -> (isFirst: Bool, refused: AuthenticationTicket?)? in
            guard state.phase == .admitting(attempt: attempt) else { return nil }
            state.admissionWait = nil
            switch admission {
            case .granted(let slot):
                state.slot = slot
                state.phase = authenticated ? .authenticating(attempt: attempt) : .sending(attempt: attempt)
            case .refused:
                state.phase = .receiving(attempt: attempt)
            }
            defer { state.refusedTicket = nil }
            return (state.sends == 0, state.refusedTicket)
        }
        guard let claim else {
            // Terminated while the gate answered: the slot goes back.
            if case .granted(let slot) = admission {
                gate?.release(slot, outcome: .ignored, now: retryPolicy.scheduler.now)
            }
            return
        }
        switch admission {
        case .refused(let error):
            failLater(error, ifStill: .receiving(attempt: attempt))
        case .granted:
            if claim.isFirst {
                gate?.depositFirstAttempt(now: retryPolicy.scheduler.now)
            }
            if authenticated {
                awaitTicket(for: attempt, replacing: claim.refused)
            } else {
                send(attempt: attempt, ticket: nil)
            }
        }
    }

    /// Asks the authenticator for the ticket of `attempt`: a fresh one, or — after an unauthorized
    /// answer to `refused` — the one to replay with.
    func awaitTicket(for attempt: Int, replacing refused: AuthenticationTicket?) {
        guard let authenticator = plan.authenticator else { return }
        let arrived: @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void = { [weak self] result in
            self?.ticketArrived(result, attempt: attempt)
        }
        let wait = refused.map { authenticator.unauthorized(with: $0, arrived) } ?? authenticator.ticket(arrived)
        let keep = state.withLock { state -> Bool in
            guard state.phase == .authenticating(attempt: attempt) else { return false }
            state.ticketWait = wait
            return true
        }
        if keep {
            emit(.held(.credential))
        } else {
            wait.dispose()
        }
    }

    func ticketArrived(_ result: Result<AuthenticationTicket, HTTPClientError>, attempt: Int) {
        let claimed = state.withLock { state -> Bool in
            guard state.phase == .authenticating(attempt: attempt) else { return false }
            state.phase = .sending(attempt: attempt)
            state.ticketWait = nil
            return true
        }
        guard claimed else { return }
        switch result {
        case .success(let ticket):
            send(attempt: attempt, ticket: ticket)
        case .failure(let error):
            failLater(error, ifStill: .sending(attempt: attempt))
        }
    }

    /// Sends `attempt`: plugins' `prepare`, the ticket's header, header validation, `willSend`,
    /// the transport.
    func send(attempt: Int, ticket: AuthenticationTicket?) {
        var request = plan.request
        let info = HTTPRequestInfo(
            id: attempt == 1 ? id : client.makeRequestID(), method: plan.method, path: plan.path,
            authorizationType: plan.authorizationType, declaresAuthorization: plan.declaresAuthorization,
            requestName: plan.requestName, callID: id, attempt: attempt
        )
        for plugin in client.plugins {
            request = plugin.prepare(request, info: info)
        }
        if let ticket {
            // After the plugins: the authenticator's header is the one that counts.
            request.setValue(ticket.headerValue, forHTTPHeaderField: ticket.headerName)
        }
        do throws(HTTPClientError) {
            try HeaderValidation.validate(request.allHTTPHeaderFields ?? [:], url: request.url)
        } catch {
            failLater(error, ifStill: .sending(attempt: attempt))
            return
        }
        if let timeLeft = timeLeft() {
            guard timeLeft > 0 else {
                terminate(.deadline, onlyIf: { $0 == .sending(attempt: attempt) })
                return
            }
            if timeLeft < plan.timeout {
                request.timeoutInterval = timeLeft
            }
        }
        if let ticket, let authenticator = plan.authenticator as? OAuthAuthenticator, !authenticator.isCurrent(ticket) {
            // A refresh began since the ticket was handed out: nothing goes out with the credential
            // it replaces. Ask again (this waits for the refresh).
            let again = state.withLock { state -> Bool in
                guard state.phase == .sending(attempt: attempt) else { return false }
                state.phase = .authenticating(attempt: attempt)
                return true
            }
            if again { awaitTicket(for: attempt, replacing: nil) }
            return
        }
        let sendTime = retryPolicy.scheduler.now
        let proceed = state.withLock { state -> Bool in
            guard state.phase == .sending(attempt: attempt) else { return false }
            state.sentRequest = request
            state.sentInfo = info
            state.ticket = ticket
            state.pluginsAwaitReceive = true
            state.sends += 1
            state.attemptStarted = sendTime
            return true
        }
        guard proceed else { return }
        for plugin in client.plugins {
            plugin.willSend(request, info: info)
        }
        guard state.withLock({ $0.phase == .sending(attempt: attempt) }) else { return }
        emit(.attemptStarted(attempt: attempt))
        let inline = client.transportCallsBackOnCallbackQueue
        let url = request.url
        let ended: @Sendable (Result<HTTPResponse, HTTPClientError>) -> Void = { [self] result in
            if inline {
                attemptEnded(result, attempt: attempt)
            } else {
                client.runOnCallbackContext { self.attemptEnded(result, attempt: attempt) }
            }
        }
        let task: Disposable
        if let pump = plan.stream {
            pump.begin(attempt: attempt)
            task = client.transport.stream(request, options: client.transportOptions) { part in
                switch part {
                case .success(.head(let head)):
                    // The head ends the call's attempt (status, plugins, retries); the body flows on.
                    pump.noteHead(attempt: attempt)
                    ended(.success(HTTPResponse(statusCode: head.statusCode, headers: head.headers, url: head.url)))
                case .success(let bodyOrEnd):
                    pump.receive(.success(bodyOrEnd), attempt: attempt)
                case .failure(let error):
                    let failure = URLErrorClassification.classify(error, url: url)
                    if pump.headSeen(attempt: attempt) {
                        pump.receive(.failure(failure), attempt: attempt)
                    } else {
                        ended(.failure(failure))
                    }
                }
            }
            pump.attach(task, attempt: attempt)
        } else {
            task = client.transport.send(request, options: client.transportOptions) { result in
                ended(result.mapError { URLErrorClassification.classify($0, url: url) })
            }
        }
        let keep = state.withLock { state -> Bool in
            guard state.phase == .sending(attempt: attempt), state.transportTask == nil else { return false }
            state.transportTask = task
            return true
        }
        if !keep, plan.stream == nil {
            // Cancelled meanwhile (then this cancels the exchange), or already answered (then
            // disposing a finished exchange does nothing). A stream's exchange is not the attempt's
            // to cancel: its head may already have ended the attempt while the body still flows,
            // and the pump it was attached to cancels it when the attempt or the stream is over.
            task.dispose()
        }
    }

    /// On the callback queue: status validation, plugins, then decoding or the retry decision.
    func attemptEnded(_ transportResult: Result<HTTPResponse, HTTPClientError>, attempt: Int) {
        let claim = state.withLock { state -> (request: URLRequest, info: HTTPRequestInfo, notify: Bool, decode: Decode, slot: HostGate.Slot?, sent: Date)? in
            guard state.phase == .sending(attempt: attempt), let request = state.sentRequest,
                  let info = state.sentInfo, let decode = state.decode else { return nil }
            state.phase = .receiving(attempt: attempt)
            if case .success(let response) = transportResult { state.lastStatus = response.statusCode }
            defer { state.pluginsAwaitReceive = false; state.transportTask = nil; state.slot = nil }
            return (request, info, state.pluginsAwaitReceive, decode, state.slot, state.attemptStarted)
        }
        guard let claim else { return }
        emit({
            let duration = max(0, retryPolicy.scheduler.now.timeIntervalSince(claim.sent))
            switch transportResult {
            case .success(let response):
                return .response(attempt: attempt, statusCode: response.statusCode, duration: duration)
            case .failure(let error) where error.phase == .responded && error.statusCode != nil:
                return .response(attempt: attempt, statusCode: error.statusCode ?? 0, duration: duration)
            case .failure(let error):
                return .attemptFailed(attempt: attempt, code: error.code, phase: error.phase, duration: duration)
            }
        }())
        if let gate = plan.gate {
            let now = retryPolicy.scheduler.now
            if let slot = claim.slot {
                gate.release(slot, outcome: HostGate.Outcome(transportResult), now: now)
            }
            switch transportResult {
            case .failure(let error):
                gate.noteRetryAfter(error, cap: retryPolicy.maxRetryAfter, now: now)
            case .success(let response) where response.statusCode == 429 || response.statusCode == 503:
                let answer = HTTPClientError(.unacceptableStatusCode, statusCode: response.statusCode, headers: response.headers)
                gate.noteRetryAfter(answer, cap: retryPolicy.maxRetryAfter, now: now)
            case .success:
                break
            }
        }
        var result = transportResult.flatMap { validate($0, request: claim.request) }
        if claim.notify {
            for plugin in client.plugins {
                plugin.didReceive(result, request: claim.request, info: claim.info)
            }
        }
        for plugin in client.plugins {
            result = plugin.process(result, info: claim.info)
        }
        if case .failure = result {
            // A stream's body is not wanted after a refused head: retried, replayed or failed.
            plan.stream?.abandon(attempt: attempt)
        }
        switch result {
        case .success(let response):
            finish(decode(response, with: claim.decode), ifStill: .receiving(attempt: attempt))
        case .failure(let error):
            if replayIfUnauthorized(error, attempt: attempt) { return }
            decideAfter(error, attempt: attempt)
        }
    }

    /// An unauthorized answer to a signed request is replayed once, with the ticket the
    /// authenticator gives back (after a refresh, or the current one if this one was stale). A
    /// second unauthorized answer is an ordinary failure.
    func replayIfUnauthorized(_ error: HTTPClientError, attempt: Int) -> Bool {
        guard let authenticator = plan.authenticator, let status = error.statusCode,
              authenticator.unauthorizedStatusCodes.contains(status) else { return false }
        let replay = state.withLock { state -> Int? in
            guard state.phase == .receiving(attempt: attempt), state.replays == 0, let ticket = state.ticket else { return nil }
            state.replays += 1
            state.attempts += 1
            state.lastError = error
            state.refusedTicket = ticket
            state.phase = .admitting(attempt: state.attempts)
            return state.attempts
        }
        guard let next = replay else { return false }
        admit(next)
        return true
    }

    /// The acceptable statuses, and the body limit for transports that do not enforce it.
    func validate(_ response: HTTPResponse, request: URLRequest) -> Result<HTTPResponse, HTTPClientError> {
        let url = response.url ?? request.url
        guard response.body.count <= client.transportOptions.maxResponseBodySize else {
            return .failure(HTTPClientError(
                .responseTooLarge, message: "the response body passed the limit of \(client.transportOptions.maxResponseBodySize) bytes",
                statusCode: response.statusCode, url: url, headers: response.headers, phase: .responded
            ))
        }
        guard client.configuration.acceptableStatusCodes.contains(response.statusCode) else {
            return .failure(HTTPClientError(
                .unacceptableStatusCode, message: "status \(response.statusCode) is not acceptable",
                statusCode: response.statusCode, body: response.body, url: url, headers: response.headers
            ))
        }
        return .success(response)
    }

    func decode(_ response: HTTPResponse, with decode: Decode) -> Result<Output, HTTPClientError> {
        var context = ResponseDecodingContext(decoder: client.configuration.jsonDecoder, envelope: client.configuration.envelope)
        context.attempts = state.withLock { $0.sends }
        context.elapsed = max(0, retryPolicy.scheduler.now.timeIntervalSince(startedAt))
        do {
            return .success(try decode(response, context))
        } catch let error as HTTPClientError {
            return .failure(error)
        } catch {
            return .failure(HTTPClientError(
                .decodeError, message: HTTPClientError.describe(error),
                statusCode: response.statusCode, body: response.body, url: response.url, underlying: error
            ))
        }
    }
}
