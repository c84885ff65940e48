import Foundation
@_spi(RxNetworkKitInternals) import RxCore
import RxReachability

/// Everything a client shares across its requests to one host: the cooldown a `Retry-After` (or a
/// spent rate limit) asked for, the proactive rate limit's reservations, the retry budget, the
/// circuit breaker and the concurrency slots with their FIFO queue.
///
/// A call asks `admit` before each send (it may wait: a cooldown, a full set of slots), gets a
/// `Slot`, and hands it back with the attempt's outcome through `release`. Decisions are taken under
/// one lock; completions, the reachability watch and the state-change hook run outside it.
// @unchecked Sendable: mutable state lives in one LockedState; the other properties are immutable.
final class HostGate: @unchecked Sendable {
    /// A granted send: whether it holds a concurrency slot and whether it is the breaker's trial.
    struct Slot: Sendable, Equatable {
        let holdsConcurrency: Bool
        let isTrial: Bool

        /// A send that holds nothing to hand back (no limit, not a trial): the call does not keep it.
        static let untracked = Slot(holdsConcurrency: false, isTrial: false)
    }

    /// What an attempt's outcome says about the server's health.
    enum Outcome {
        /// Answered below 500.
        case success
        /// A connection failure, time-out, garbage answer or 5xx.
        case failure
        /// Says nothing (cancelled, refused by a policy of ours).
        case ignored

        init(_ result: Result<HTTPResponse, HTTPClientError>) {
            switch result {
            case .success(let response):
                self = response.statusCode >= 500 ? .failure : .success
            case .failure(let error):
                if let status = error.statusCode, error.phase == .responded {
                    self = status >= 500 ? .failure : .success
                    return
                }
                switch error.code {
                case .transport, .timedOut, .invalidResponse: self = .failure
                default: self = .ignored
                }
            }
        }
    }

    enum Admission {
        case granted(Slot)
        case refused(HTTPClientError)
    }

    private enum Breaker {
        case closed
        case open(until: Date)
        case halfOpen(trialInFlight: Bool)
    }

    private struct Waiter {
        let id: Int
        let ticket: AdmissionWait
        let completion: @Sendable (Admission) -> Void
    }

    private struct State {
        var cooldownUntil: Date?
        var cooldownCause: HTTPClientError?
        var bucket: RateLimitBucket?
        var breaker = Breaker.closed
        var health: SlidingWindow
        var budget: SlidingWindow
        var inFlight = 0
        var queue: [Waiter] = []
        var nextWaiter = 0
        var reachabilityWatch: Disposable?
    }

    let origin: Origin
    private let protection: HostProtection
    private let reachability: Reachability?
    /// The fleet this host's cooldowns and circuits are shared with, if any.
    private let fleet: Fleet?
    /// This replica's account of a fleet-wide `RateLimit` (then `State.bucket` is nil).
    private let quota: FleetQuota?
    private let state: LockedState<State>
    /// Told about each breaker state change, outside the lock (the client's events).
    private let onCircuitChange: @Sendable (Origin, CircuitState) -> Void

    init(origin: Origin, protection: HostProtection, reachability: Reachability?, fleet: Fleet? = nil,
         onCircuitChange: @escaping @Sendable (Origin, CircuitState) -> Void) {
        self.origin = origin
        self.protection = protection
        self.reachability = reachability
        self.onCircuitChange = onCircuitChange
        self.fleet = fleet
        let fleetLimit = protection.rateLimit.flatMap { $0.scope == .fleet ? $0 : nil }
        self.quota = fleet.flatMap { fleet in fleetLimit.map { fleet.quota(for: origin.description, limit: $0) } }
        self.state = .make(State(
            bucket: quota == nil ? protection.rateLimit.map(RateLimitBucket.init) : nil,
            health: SlidingWindow(length: protection.circuitBreaker?.window ?? 1),
            budget: SlidingWindow(length: protection.retryBudget?.window ?? 1)
        ))
    }

    deinit {
        state.withLock { $0.reachabilityWatch }?.dispose()
    }

    // MARK: Admission

    /// Admits one send: at once, after a cooldown or a place in the queue, or refused
    /// (`.circuitOpen`, `.rejected`, or the cooldown's cause when the deadline ends sooner).
    ///
    /// - Returns: Disposing it gives up waiting (the completion is then not called).
    /// - Parameters:
    ///   - onHold: Told once when the send has to wait, and why (for the client's events).
    func admit(
        bypassesQueue: Bool, deadlineAt: Date?, scheduler: SchedulerType,
        onHold: @escaping @Sendable (HTTPClientEvent.HoldReason) -> Void = { _ in },
        completion: @escaping @Sendable (Admission) -> Void
    ) -> Disposable {
        let ticket = AdmissionWait()
        attemptAdmission(ticket, bypassesQueue: bypassesQueue, deadlineAt: deadlineAt, scheduler: scheduler, onHold: onHold, completion: completion)
        return ticket
    }

    /// Admits one send at once when nothing stands in the way — no cooldown, the breaker closed (or
    /// none), a free slot with nobody queued (or no limit), a rate-limit token free now (or no rate
    /// limit); nil otherwise, changing nothing (the caller then goes through `admit`, which waits or
    /// refuses).
    ///
    /// - Parameter isFirstAttempt: Pays the first attempt into the retry budget in the same lock.
    func admitAtOnce(bypassesQueue: Bool, isFirstAttempt: Bool, now: Date) -> Slot? {
        state.withLock { state in
            if let until = state.cooldownUntil, until > now { return nil }
            if protection.circuitBreaker != nil {
                guard case .closed = state.breaker else { return nil }
            }
            var slot = Slot.untracked
            let limit = bypassesQueue ? nil : protection.maxConcurrentRequests
            if let limit {
                guard state.inFlight < limit, state.queue.isEmpty else { return nil }
            }
            if state.bucket != nil {
                guard state.bucket?.wait(now: now) == 0 else { return nil }
                _ = state.bucket?.reserve(now: now)
            }
            if let quota, !quota.tryTake() { return nil }
            if limit != nil {
                state.inFlight += 1
                slot = Slot(holdsConcurrency: true, isTrial: false)
            }
            if isFirstAttempt, protection.retryBudget != nil {
                state.budget.add(a: 1, now: now)
            }
            return slot
        }
    }

    /// Whether `release` has anything to do for `slot`: a slot to hand back, or a breaker to tell.
    func needsRelease(_ slot: Slot) -> Bool {
        slot != .untracked || protection.circuitBreaker != nil
    }

    private enum Step {
        case answer(Admission)
        case coolDown(TimeInterval)
        /// Waits for its rate-limit turn, reserved at `turn`.
        case paced(TimeInterval, turn: Date?)
        /// Waits for a token of the fleet's quota.
        case awaitQuota(FleetQuota)
        case queued(Int)
    }

    /// - Parameter holdsTurn: A rate-limit turn was reserved already (this is the attempt after
    ///   waiting for it).
    private func attemptAdmission(
        _ ticket: AdmissionWait, bypassesQueue: Bool, deadlineAt: Date?, scheduler: SchedulerType, holdsTurn: Bool = false,
        onHold: @escaping @Sendable (HTTPClientEvent.HoldReason) -> Void,
        completion: @escaping @Sendable (Admission) -> Void
    ) {
        let now = scheduler.now
        var change: CircuitState?
        let step = state.withLock { state -> Step in
            if let until = state.cooldownUntil, until > now {
                if let deadlineAt, deadlineAt < until {
                    return .answer(.refused(cooldownRefusal(state.cooldownCause, until: until, now: now)))
                }
                return .coolDown(until.timeIntervalSince(now))
            }
            if !holdsTurn, let wait = state.bucket?.wait(now: now) {
                if wait > 0, let deadlineAt, now.addingTimeInterval(wait) > deadlineAt {
                    return .answer(.refused(rateLimitRefusal(wait: wait)))
                }
                _ = state.bucket?.reserve(now: now)
                if wait > 0 {
                    return .paced(wait, turn: state.bucket?.latestTurn)
                }
            }
            if !holdsTurn, let quota, !quota.tryTake() {
                return .awaitQuota(quota)
            }
            var isTrial = false
            if protection.circuitBreaker != nil {
                if case .open(let until) = state.breaker, now >= until {
                    state.breaker = .halfOpen(trialInFlight: false)
                    change = .halfOpen
                }
                switch state.breaker {
                case .closed:
                    break
                case .open(let until):
                    return .answer(.refused(circuitOpen(retryAfter: until.timeIntervalSince(now))))
                case .halfOpen(let trialInFlight):
                    guard !trialInFlight else { return .answer(.refused(circuitOpen(retryAfter: nil))) }
                    state.breaker = .halfOpen(trialInFlight: true)
                    isTrial = true
                }
            }
            guard let limit = protection.maxConcurrentRequests, !bypassesQueue else {
                return .answer(.granted(Slot(holdsConcurrency: false, isTrial: isTrial)))
            }
            if state.inFlight < limit && state.queue.isEmpty {
                state.inFlight += 1
                return .answer(.granted(Slot(holdsConcurrency: true, isTrial: isTrial)))
            }
            if isTrial {
                // The trial waits in line like any request; the breaker stays half-open meanwhile.
                state.breaker = .halfOpen(trialInFlight: false)
            }
            guard state.queue.count < protection.maxQueuedRequests else {
                return .answer(.refused(HTTPClientError(
                    .rejected,
                    message: "\(state.inFlight) requests in flight to \(origin) and \(state.queue.count) queued: the queue is full",
                    phase: .notSent
                )))
            }
            state.nextWaiter += 1
            state.queue.append(Waiter(id: state.nextWaiter, ticket: ticket, completion: completion))
            return .queued(state.nextWaiter)
        }
        if let change { onCircuitChange(origin, change) }
        switch step {
        case .answer(let admission):
            if ticket.finish() { completion(admission) }
        case .coolDown(let seconds):
            onHold(.cooldown)
            let timer = scheduler.scheduleRelative((), dueTime: .seconds(seconds)) { [weak self] _ in
                if let self, !ticket.isDisposed {
                    self.attemptAdmission(
                        ticket, bypassesQueue: bypassesQueue, deadlineAt: deadlineAt, scheduler: scheduler, holdsTurn: holdsTurn,
                        onHold: onHold, completion: completion
                    )
                }
                return Disposables.create()
            }
            ticket.setPending(timer)
        case .paced(let seconds, let turn):
            onHold(.rateLimit)
            let timer = scheduler.scheduleRelative((), dueTime: .seconds(seconds)) { [weak self] _ in
                // The turn has come: the wait no longer gives it back if cancelled.
                ticket.setPending(Disposables.create())
                if let self, !ticket.isDisposed {
                    self.attemptAdmission(
                        ticket, bypassesQueue: bypassesQueue, deadlineAt: deadlineAt, scheduler: scheduler, holdsTurn: true,
                        onHold: onHold, completion: completion
                    )
                }
                return Disposables.create()
            }
            ticket.setPending(Disposables.create { [weak self] in
                timer.dispose()
                if let turn { self?.state.withLock { $0.bucket?.cancelLatest(reservedAt: turn) } }
            })
        case .awaitQuota(let quota):
            onHold(.rateLimit)
            let wallDeadline = deadlineAt.map { Date().addingTimeInterval($0.timeIntervalSince(now)) }
            let wait = quota.wait(deadline: wallDeadline) { [weak self] granted in
                guard let self else { return }
                guard granted else {
                    if ticket.finish() { completion(.refused(self.rateLimitRefusal(wait: nil))) }
                    return
                }
                if !ticket.isDisposed {
                    self.attemptAdmission(
                        ticket, bypassesQueue: bypassesQueue, deadlineAt: deadlineAt, scheduler: scheduler, holdsTurn: true,
                        onHold: onHold, completion: completion
                    )
                }
            }
            ticket.setPending(wait)
        case .queued(let id):
            onHold(.hostQueue)
            ticket.setPending(Disposables.create { [weak self] in self?.leaveQueue(id) })
        }
    }

    private func leaveQueue(_ id: Int) {
        state.withLock { $0.queue.removeAll { $0.id == id } }
    }

    // MARK: Release

    /// Hands back a slot with what the attempt's outcome says about the server; releases the next
    /// queued request and moves the breaker.
    func release(_ slot: Slot, outcome: Outcome, now: Date) {
        var granted: [Waiter] = []
        var change: CircuitState?
        var watch = false
        var unwatch: Disposable?
        state.withLock { state in
            if slot.holdsConcurrency {
                state.inFlight -= 1
                if let limit = protection.maxConcurrentRequests {
                    while state.inFlight < limit, !state.queue.isEmpty {
                        state.inFlight += 1
                        granted.append(state.queue.removeFirst())
                    }
                }
            }
            guard let policy = protection.circuitBreaker else { return }
            if slot.isTrial {
                switch outcome {
                case .success:
                    state.breaker = .closed
                    state.health.reset()
                    change = .closed
                    unwatch = state.reachabilityWatch
                    state.reachabilityWatch = nil
                case .failure:
                    let until = now.addingTimeInterval(policy.breakDuration)
                    state.breaker = .open(until: until)
                    change = .open(until: until)
                    watch = state.reachabilityWatch == nil
                case .ignored:
                    state.breaker = .halfOpen(trialInFlight: false)
                }
                return
            }
            guard case .closed = state.breaker, outcome != .ignored else { return }
            state.health.add(a: 1, b: outcome == .failure ? 1 : 0, now: now)
            let totals = state.health.totals(now: now)
            if totals.a >= Double(policy.minimumRequests), totals.b / totals.a >= policy.failureRatio {
                let until = now.addingTimeInterval(policy.breakDuration)
                state.breaker = .open(until: until)
                change = .open(until: until)
                watch = state.reachabilityWatch == nil
            }
        }
        unwatch?.dispose()
        if let change {
            onCircuitChange(origin, change)
            tellFleet(change, now: now)
        }
        if watch { watchReachability() }
        for waiter in granted {
            let slot = Slot(holdsConcurrency: true, isTrial: false)
            if waiter.ticket.finish() {
                waiter.completion(.granted(slot))
            } else {
                // It gave up while being dequeued: the slot goes to the next in line.
                release(slot, outcome: .ignored, now: now)
            }
        }
    }

    /// An open breaker goes half-open the moment the host's reachability sees it come back.
    private func watchReachability() {
        guard let reachability else { return }
        let subscription = reachability.whenReachableAgain { [weak self] in self?.hostCameBack() }
        let stale = state.withLock { state -> Bool in
            guard case .open = state.breaker, state.reachabilityWatch == nil else { return true }
            state.reachabilityWatch = subscription
            return false
        }
        if stale { subscription.dispose() }
    }

    private func hostCameBack() {
        let (changed, watch) = state.withLock { state -> (Bool, Disposable?) in
            guard case .open = state.breaker else { return (false, nil) }
            state.breaker = .halfOpen(trialInFlight: false)
            defer { state.reachabilityWatch = nil }
            return (true, state.reachabilityWatch)
        }
        watch?.dispose()
        if changed {
            onCircuitChange(origin, .halfOpen)
            fleet?.publish(.recovered, origin: origin.description, until: nil, statusCode: nil)
        }
    }

    // MARK: Cooldown and budget

    /// A 429 or 503 with `Retry-After`: pauses the host (capped by `maxCooldown` and by the
    /// `cap` of the request that saw it) and keeps an open breaker open at least that long.
    ///
    /// - Parameters:
    ///   - error: The answer.
    ///   - cap: The observing request's `RetryPolicy.maxRetryAfter`.
    ///   - now: The time on the scheduler the cooldown is kept in. An HTTP-date `Retry-After` is read
    ///     against the wall clock, then turned into a wait from `now`.
    func noteRetryAfter(_ error: HTTPClientError, cap: TimeInterval, now: Date) {
        guard error.statusCode == 429 || error.statusCode == 503, let asked = error.retryAfter(now: Date()) else { return }
        let seconds = min(TimeoutBounds.clampedWait(asked), protection.maxCooldown, cap)
        guard seconds > 0 else { return }
        let until = now.addingTimeInterval(seconds)
        var change: CircuitState?
        let extended = state.withLock { state -> Bool in
            var extended = false
            if protection.honorsRetryAfterCooldown, until > (state.cooldownUntil ?? .distantPast) {
                state.cooldownUntil = until
                state.cooldownCause = error
                extended = true
            }
            if case .open(let current) = state.breaker, until > current {
                state.breaker = .open(until: until)
                change = .open(until: until)
            }
            return extended
        }
        if let change { onCircuitChange(origin, change) }
        if extended {
            fleet?.publish(.cooldown, origin: origin.description, until: Date().addingTimeInterval(seconds), statusCode: error.statusCode)
        }
    }

    /// What the server said of its rate limit (any answer's headers): when nothing remains, the
    /// host pauses until the stated reset, capped by `maxCooldown` and by `cap` (the observing
    /// request's `RetryPolicy.maxRetryAfter`), like a `Retry-After` cooldown.
    ///
    /// - Parameter now: The time on the scheduler the cooldown is kept in; an epoch reset is read
    ///   against the wall clock.
    func noteRateLimitHeaders(_ headers: HTTPHeaders, cap: TimeInterval, now: Date) {
        guard protection.readsRateLimitHeaders,
              let status = RateLimitHeaders.status(in: headers, now: Date()), status.remaining == 0,
              let reset = status.resetAfter else { return }
        let seconds = min(TimeoutBounds.clampedWait(reset), protection.maxCooldown, cap)
        guard seconds > 0 else { return }
        let until = now.addingTimeInterval(seconds)
        let extended = state.withLock { state -> Bool in
            guard until > (state.cooldownUntil ?? .distantPast) else { return false }
            state.cooldownUntil = until
            var cause = HTTPClientError(.rejected, message: "\(origin) said its rate limit is spent", phase: .notSent)
            cause.suggestedRetryAfter = seconds
            state.cooldownCause = cause
            return true
        }
        if extended {
            fleet?.publish(.cooldown, origin: origin.description, until: Date().addingTimeInterval(seconds), statusCode: nil)
        }
    }

    // MARK: Fleet

    /// Tells the siblings about a breaker change of ours: opened, or closed by a trial (recovered).
    private func tellFleet(_ change: CircuitState, now: Date) {
        guard let fleet else { return }
        switch change {
        case .open(let until):
            fleet.publish(.circuitOpen, origin: origin.description, until: Date().addingTimeInterval(until.timeIntervalSince(now)), statusCode: nil)
        case .closed:
            fleet.publish(.recovered, origin: origin.description, until: nil, statusCode: nil)
        case .halfOpen:
            break
        }
    }

    /// A sibling's word about this host: its cooldown holds here too, its open circuit opens ours
    /// (when we have a breaker), its recovery half-opens an open breaker. Applied without telling
    /// the fleet again.
    ///
    /// - Parameter now: The time on the scheduler the gate's times are kept in.
    func apply(_ signal: FleetSignal, now: Date) {
        // Bounded like our own: a cooldown by `maxCooldown`, an open circuit by the longer of that
        // and our break duration.
        let left = signal.until - Date().timeIntervalSince1970
        let seconds = min(left, signal.kind == .cooldown ? protection.maxCooldown : max(protection.maxCooldown, protection.circuitBreaker?.breakDuration ?? 0))
        var change: CircuitState?
        var watch = false
        var unwatch: Disposable?
        state.withLock { state in
            switch signal.kind {
            case .cooldown:
                guard protection.honorsRetryAfterCooldown, seconds > 0 else { return }
                let until = now.addingTimeInterval(seconds)
                guard until > (state.cooldownUntil ?? .distantPast) else { return }
                state.cooldownUntil = until
                var cause = HTTPClientError(
                    signal.statusCode == nil ? .rejected : .unacceptableStatusCode,
                    message: "\(origin) asked a sibling replica to wait", statusCode: signal.statusCode, phase: .notSent
                )
                cause.suggestedRetryAfter = seconds
                state.cooldownCause = cause
            case .circuitOpen:
                guard protection.circuitBreaker != nil, seconds > 0 else { return }
                let until = now.addingTimeInterval(seconds)
                switch state.breaker {
                case .closed, .halfOpen(trialInFlight: false):
                    state.breaker = .open(until: until)
                    change = .open(until: until)
                    watch = state.reachabilityWatch == nil
                case .open(let current) where until > current:
                    state.breaker = .open(until: until)
                    change = .open(until: until)
                default:
                    break
                }
            case .recovered:
                guard case .open = state.breaker else { return }
                state.breaker = .halfOpen(trialInFlight: false)
                change = .halfOpen
                unwatch = state.reachabilityWatch
                state.reachabilityWatch = nil
            }
        }
        unwatch?.dispose()
        if let change { onCircuitChange(origin, change) }
        if watch { watchReachability() }
    }

    /// A first attempt was sent: it pays `ratio` into the budget.
    func depositFirstAttempt(now: Date) {
        guard protection.retryBudget != nil else { return }
        state.withLock { $0.budget.add(a: 1, now: now) }
    }

    /// Whether the budget can pay for one retry now (and pays it).
    func withdrawRetry(now: Date) -> Bool {
        guard let budget = protection.retryBudget else { return true }
        return state.withLock { state in
            let totals = state.budget.totals(now: now)
            let balance = budget.ratio * totals.a + budget.minRetriesPerSecond * budget.window - totals.b
            guard balance >= 1 else { return false }
            state.budget.add(b: 1, now: now)
            return true
        }
    }

    /// The breaker's state as of `now`.
    func circuitState(now: Date) -> CircuitState {
        state.withLock { state in
            switch state.breaker {
            case .closed: return .closed
            case .open(let until): return now >= until ? .halfOpen : .open(until: until)
            case .halfOpen: return .halfOpen
            }
        }
    }

    /// Requests in flight and queued, for tests and events.
    var load: (inFlight: Int, queued: Int) {
        state.withLock { ($0.inFlight, $0.queue.count) }
    }

    // MARK: Errors

    private func circuitOpen(retryAfter: TimeInterval?) -> HTTPClientError {
        var error = HTTPClientError(
            .circuitOpen,
            message: retryAfter.map { "the circuit to \(origin) is open for \(String(format: "%.3g", $0)) s more" }
                ?? "the circuit to \(origin) is half-open and its trial request is in flight",
            phase: .notSent
        )
        error.suggestedRetryAfter = retryAfter.map { max(0, $0) }
        return error
    }

    /// - Parameter wait: When the next turn comes; nil for a fleet's quota, which cannot know.
    private func rateLimitRefusal(wait: TimeInterval?) -> HTTPClientError {
        var error = HTTPClientError(
            .rejected,
            message: wait.map { "the rate limit for \(origin) has no turn for \(String(format: "%.3g", $0)) s, past the request's deadline" }
                ?? "the fleet's rate limit for \(origin) had no turn before the request's deadline",
            phase: .notSent
        )
        error.suggestedRetryAfter = wait
        return error
    }

    private func cooldownRefusal(_ cause: HTTPClientError?, until: Date, now: Date) -> HTTPClientError {
        let wait = until.timeIntervalSince(now)
        var error = cause ?? HTTPClientError(.unacceptableStatusCode, statusCode: 429)
        let why = error.code == .rejected ? "its rate limit is spent" : "Retry-After"
        error.message = "\(origin) asked to wait \(String(format: "%.3g", wait)) s more (\(why)), past the request's deadline"
        error.phase = .notSent
        error.attempts = 0
        error.suggestedRetryAfter = wait
        return error
    }
}

/// One admission in progress: completes once; disposing cancels the cooldown timer or leaves the
/// queue.
// @unchecked Sendable: mutable state lives in one LockedState.
final class AdmissionWait: Disposable, @unchecked Sendable {
    private struct State {
        var done = false
        var pending: Disposable?
    }

    private let state = LockedState<State>.make(State())

    var isDisposed: Bool {
        state.withLock { $0.done }
    }

    /// Claims the one completion; false if already answered or disposed. What was pending (a
    /// timer that fired, a queue place already left) needs no disposing.
    func finish() -> Bool {
        state.withLock { state in
            guard !state.done else { return false }
            state.done = true
            state.pending = nil
            return true
        }
    }

    func setPending(_ pending: Disposable) {
        let stale = state.withLock { state -> Bool in
            guard !state.done else { return true }
            state.pending = pending
            return false
        }
        if stale { pending.dispose() }
    }

    func dispose() {
        let pending = state.withLock { state -> Disposable? in
            guard !state.done else { return nil }
            state.done = true
            defer { state.pending = nil }
            return state.pending
        }
        pending?.dispose()
    }
}
