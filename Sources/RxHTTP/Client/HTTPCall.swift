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
    private enum Phase: Equatable {
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

    private struct State {
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
    private let client: HTTPClient
    private let plan: Plan
    /// The scheduler time by which everything must be over, if the policy has a deadline.
    private let deadlineAt: Date?
    /// When the call was made, on the policy's scheduler.
    private let startedAt: Date
    private let state: LockedState<State>

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

    private var retryPolicy: RetryPolicy { plan.policy }

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
    private func admit(_ attempt: Int) {
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

    private func admitted(_ admission: HostGate.Admission, attempt: Int, gate: HostGate?) {
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
    private func awaitTicket(for attempt: Int, replacing refused: AuthenticationTicket?) {
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

    private func ticketArrived(_ result: Result<AuthenticationTicket, HTTPClientError>, attempt: Int) {
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
    private func send(attempt: Int, ticket: AuthenticationTicket?) {
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
        if !keep {
            // Cancelled meanwhile (then this cancels the exchange), or already answered (then
            // disposing a finished exchange does nothing).
            task.dispose()
        }
    }

    /// On the callback queue: status validation, plugins, then decoding or the retry decision.
    private func attemptEnded(_ transportResult: Result<HTTPResponse, HTTPClientError>, attempt: Int) {
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
    private func replayIfUnauthorized(_ error: HTTPClientError, attempt: Int) -> Bool {
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
    private func validate(_ response: HTTPResponse, request: URLRequest) -> Result<HTTPResponse, HTTPClientError> {
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

    private func decode(_ response: HTTPResponse, with decode: Decode) -> Result<Output, HTTPClientError> {
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

    // MARK: Retry

    /// Asks the policy about a failed attempt: delivers the error, or starts the wait.
    private func decideAfter(_ failure: HTTPClientError, attempt: Int) {
        var error = failure
        error.isSafeToRepeat = plan.idempotency.allowsRepeatAfterSending(plan.method, idempotentMethods: retryPolicy.retryableMethods)
        let counts = state.withLock { ($0.sends, $0.replays) }
        let decision = retryPolicy.decide(
            after: error, attemptsMade: counts.0 - counts.1, method: plan.method, idempotency: plan.idempotency,
            timeLeft: timeLeft(), now: Date()
        )
        switch decision {
        case .stop(var final):
            final.decidedByRetryPolicy = retryPolicy.maxAttempts > 1
            finish(.failure(final), ifStill: .receiving(attempt: attempt))
        case .retry(let delay):
            guard !client.isShuttingDown else {
                finish(.failure(shutdownError(stopping: error)), ifStill: .receiving(attempt: attempt))
                return
            }
            if let gate = plan.gate, !gate.withdrawRetry(now: retryPolicy.scheduler.now) {
                var exhausted = HTTPClientError(
                    .retryBudgetExhausted, message: "the retry budget of \(gate.origin) is spent; the failure was not retried",
                    statusCode: error.statusCode, url: error.url, underlying: error, headers: error.headers, phase: error.phase
                )
                exhausted.decidedByRetryPolicy = true
                finish(.failure(exhausted), ifStill: .receiving(attempt: attempt))
                return
            }
            wait(delay, after: error, attempt: attempt)
        }
    }

    /// Waits `delay` seconds, or until the host is reachable again, whichever comes first.
    private func wait(_ delay: TimeInterval, after error: HTTPClientError, attempt: Int) {
        let scheduler = retryPolicy.scheduler
        let generation = state.withLock { state -> Int? in
            guard state.phase == .receiving(attempt: attempt) else { return nil }
            state.generation += 1
            state.phase = .waiting(generation: state.generation)
            state.lastError = error
            state.waitStarted = scheduler.now
            state.plannedDelay = delay
            return state.generation
        }
        guard let generation else { return }
        emit(.retryScheduled(nextAttempt: attempt + 1, delay: delay, after: error.code, statusCode: error.statusCode))
        guard delay > 0 else {
            endWait(generation: generation, trigger: .immediate)
            return
        }
        let timer = scheduler.scheduleRelative((), dueTime: .seconds(delay)) { [weak self] _ in
            self?.endWait(generation: generation, trigger: .timer)
            return Disposables.create()
        }
        var pieces: [Disposable] = [timer]
        if retryPolicy.retriesWhenReachable, let url = plan.request.url, let reachability = client.reachability(for: url) {
            // May fire at once, within `subscribe`: endWait claims the generation under the lock.
            pieces.append(reachability.didBecomeReachable.subscribe(onNext: { [weak self] in
                self?.endWait(generation: generation, trigger: .reachability)
            }))
        }
        let pending = Disposables.create(pieces)
        let stale = state.withLock { state -> Bool in
            guard state.phase == .waiting(generation: generation) else { return true }
            state.wait = pending
            return false
        }
        if stale {
            pending.dispose()
        }
    }

    /// Ends the wait of `generation` (the first of timer and reachability wins; a late signal finds
    /// nothing to do), tells `onRetry`, and queues the next attempt.
    private func endWait(generation: Int, trigger: RetryTrigger) {
        let now = retryPolicy.scheduler.now
        let claimed = state.withLock { state -> (wait: Disposable?, notification: RetryNotification<HTTPClientError>?)? in
            guard state.phase == .waiting(generation: generation) else { return nil }
            state.phase = .queued
            defer { state.wait = nil }
            let notification = state.lastError.map {
                RetryNotification(
                    attempt: state.attempts + 1, error: $0, delay: state.plannedDelay, trigger: trigger,
                    waited: max(0, now.timeIntervalSince(state.waitStarted))
                )
            }
            return (state.wait, notification)
        }
        guard let claimed else { return }
        claimed.wait?.dispose()
        if let notification = claimed.notification {
            emit(.waitEnded(trigger: notification.trigger, waited: notification.waited))
            retryPolicy.onRetry?(notification)
        }
        if client.enqueue(self, bypassesSuspension: plan.bypassesSuspension) {
            emit(.held(.suspended))
        }
    }

    /// Seconds left before the deadline, on the policy's clock; nil without a deadline.
    private func timeLeft() -> TimeInterval? {
        deadlineAt.map { $0.timeIntervalSince(retryPolicy.scheduler.now) }
    }

    // MARK: Ending early

    private enum Termination {
        case cancelled
        case deadline
        case shutdown
    }

    /// Cancels the call: removes it from the hold queue, cancels its transport or its wait, and
    /// delivers `.cancelled`. Does nothing once finished.
    func cancel() {
        terminate(.cancelled, onlyIf: { _ in true })
    }

    /// The client began shutting down: a call that is queued or waiting to retry fails with
    /// `.shutdown`; one in flight finishes (without retrying) or is cancelled at the grace
    /// period's end.
    func clientIsShuttingDown() {
        terminate(.shutdown, onlyIf: { phase in
            switch phase {
            case .queued, .waiting, .admitting, .authenticating: return true
            case .sending, .receiving, .finished: return false
            }
        })
    }

    /// The shutdown's grace period ended: whatever is left fails with `.shutdown`.
    func gracePeriodEnded() {
        terminate(.shutdown, onlyIf: { _ in true })
    }

    private func deadlinePassed() {
        terminate(.deadline, onlyIf: { phase in
            if case .receiving = phase { return false }
            return true
        })
    }

    private func terminate(_ reason: Termination, onlyIf allowed: (Phase) -> Bool) {
        typealias Action = (wasQueued: Bool, task: Disposable?, wait: Disposable?, timer: Disposable?, ticketWait: Disposable?,
                            notify: (request: URLRequest, info: HTTPRequestInfo)?, error: HTTPClientError)
        var slotToRelease: HostGate.Slot?
        let action = state.withLock { state -> Action? in
            guard state.phase != .finished, allowed(state.phase) else { return nil }
            let wasQueued = state.phase == .queued
            let wasSending: Bool
            if case .sending = state.phase { wasSending = true } else { wasSending = false }
            let error = terminationError(reason, attempts: state.sends, lastError: state.lastError, wasSending: wasSending)
            state.phase = .finished
            state.wasCancelled = reason == .cancelled
            let notify = state.pluginsAwaitReceive ? state.sentRequest.flatMap { request in state.sentInfo.map { (request, $0) } } : nil
            defer {
                state.pluginsAwaitReceive = false
                state.transportTask = nil
                state.wait = nil
                state.deadlineTimer = nil
                state.ticketWait = nil
                state.admissionWait = nil
                state.slot = nil
            }
            let waits = Disposables.create([state.wait, state.ticketWait, state.admissionWait].compactMap { $0 })
            if let slot = state.slot {
                slotToRelease = slot
            }
            return (wasQueued, state.transportTask, waits, state.deadlineTimer, nil, notify, error)
        }
        guard let action else { return }
        if action.wasQueued {
            client.removeHeld(id: id)
        }
        action.task?.dispose()
        action.wait?.dispose()
        action.timer?.dispose()
        action.ticketWait?.dispose()
        if let slotToRelease {
            plan.gate?.release(slotToRelease, outcome: .ignored, now: retryPolicy.scheduler.now)
        }
        let error = action.error
        let notify = action.notify
        client.runOnCallbackContext { [self] in
            if let notify {
                for plugin in client.plugins {
                    plugin.didReceive(.failure(error), request: notify.request, info: notify.info)
                }
            }
            emitCompleted(.failure(error), attempts: error.attempts)
            takeCompletion()?(.failure(error))
            client.callFinished(id: id)
        }
    }

    /// The completion, once: the phase is already `finished` when this is called.
    private func takeCompletion() -> Completion? {
        state.withLock { state in
            defer { state.completion = nil; state.decode = nil }
            return state.completion
        }
    }

    private func terminationError(_ reason: Termination, attempts: Int, lastError: HTTPClientError?, wasSending: Bool) -> HTTPClientError {
        let url = plan.request.url
        var error: HTTPClientError
        switch reason {
        case .cancelled:
            error = HTTPClientError(.cancelled, message: "the request was cancelled", url: url,
                                    phase: attempts == 0 ? .notSent : .sentWithoutResponse)
        case .shutdown:
            error = shutdownError(stopping: wasSending ? nil : lastError)
            if wasSending {
                error.message = "the client's shutdown grace period ended while the request was in flight"
                error.phase = .sentWithoutResponse
            }
        case .deadline:
            let seconds = retryPolicy.deadline.map { String(format: "%.3g s", $0) } ?? "?"
            if !wasSending, let lastError {
                error = lastError
                error.message = [lastError.message, "the deadline of \(seconds) passed before it could be retried"]
                    .compactMap { $0 }.joined(separator: "; ")
            } else {
                error = HTTPClientError(
                    .timedOut, message: "the deadline of \(seconds) passed", url: url,
                    phase: wasSending ? .sentWithoutResponse : (attempts == 0 ? .notSent : .sentWithoutResponse)
                )
            }
            error.decidedByRetryPolicy = retryPolicy.maxAttempts > 1
        }
        error.attempts = attempts
        error.isSafeToRepeat = plan.idempotency.allowsRepeatAfterSending(plan.method, idempotentMethods: retryPolicy.retryableMethods)
        return error
    }

    private func shutdownError(stopping lastError: HTTPClientError?) -> HTTPClientError {
        var error = HTTPClientError(
            .shutdown, message: lastError == nil ? "the client is shutting down" : "the client is shutting down; the failure was not retried",
            url: plan.request.url, underlying: lastError, phase: lastError?.phase ?? .notSent
        )
        error.statusCode = lastError?.statusCode
        return error
    }

    // MARK: Delivery

    /// Delivers `result` if the call is still in `phase`; called on the callback queue.
    private func finish(_ result: Result<Output, HTTPClientError>, ifStill phase: Phase) {
        let claimed = state.withLock { state -> (completion: Completion?, timer: Disposable?, attempts: Int)? in
            guard state.phase == phase else { return nil }
            state.phase = .finished
            defer { state.completion = nil; state.decode = nil; state.deadlineTimer = nil }
            return (state.completion, state.deadlineTimer, state.sends)
        }
        guard let claimed else { return }
        claimed.timer?.dispose()
        emitCompleted(result.map { _ in () }, attempts: claimed.attempts)
        claimed.completion?(result.mapError { error -> HTTPClientError in
            var error = error
            error.attempts = claimed.attempts
            error.isSafeToRepeat = plan.idempotency.allowsRepeatAfterSending(plan.method, idempotentMethods: retryPolicy.retryableMethods)
            return error
        })
        client.callFinished(id: id)
    }

    /// Fails the call from any thread if it is still in `phase`: the delivery hops to the callback
    /// queue, never running synchronously inside the call that made the request.
    private func failLater(_ error: HTTPClientError, ifStill phase: Phase) {
        client.runOnCallbackContext { [self] in
            finish(.failure(error), ifStill: phase)
        }
    }

    /// Fails a call that the client refused to admit, on the callback queue.
    private func refuse(_ error: HTTPClientError) {
        state.withLock { $0.phase = .finished }
        client.runOnCallbackContext { [self] in
            emitCompleted(.failure(error), attempts: 0)
            takeCompletion()?(.failure(error))
        }
    }

    // MARK: Events

    /// Emits an event of this call, if anybody listens (the event is not even built otherwise).
    private func emit(_ kind: @autoclosure () -> HTTPClientEvent.Kind) {
        guard client.eventHub.isActive else { return }
        client.eventHub.emit(HTTPClientEvent(
            requestID: id, method: plan.method, url: redactedURL(), timestamp: retryPolicy.scheduler.now, kind: kind()
        ))
    }

    /// The request's URL as events show it: redacted once per call.
    private func redactedURL() -> String? {
        if let cached = state.withLock({ $0.redactedURL }) { return cached }
        guard let url = plan.request.url else { return nil }
        let redacted = Redaction.standard.url(url)
        state.withLock { $0.redactedURL = redacted }
        return redacted
    }

    private func emitCompleted(_ result: Result<Void, HTTPClientError>, attempts: Int) {
        guard client.eventHub.isActive else { return }
        let outcome: HTTPClientEvent.Outcome
        switch result {
        case .success:
            outcome = .success(statusCode: state.withLock { $0.lastStatus } ?? 200)
        case .failure(let error):
            outcome = .failure(code: error.code, statusCode: error.statusCode, phase: error.phase)
        }
        let duration = max(0, retryPolicy.scheduler.now.timeIntervalSince(startedAt))
        emit(.completed(outcome, duration: duration, attempts: attempts))
    }
}
