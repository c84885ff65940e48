import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One replica's side of a `RateLimit` with `scope: .fleet`: tokens leased from the fleet's shared
/// bucket in batches and spent locally, so that the engine is touched once per batch, not once
/// per request.
///
/// - **Batches** are sized from the rate (a fifth of a second's worth) and the burst (a third of
///   the capacity shared among the members), at least one token; the next batch is asked for when
///   half of this one is spent, so that a steady caller rarely waits for the engine.
/// - **Strict**: the shared bucket counts every replica's unspent lease as taken, so the fleet's
///   sends together stay within the limit plus its burst. A replica says what it still holds with
///   every lease (its account is set to that, so a grant lost to a time-out is struck off at the
///   next one); tokens unused for a second are given back; a dead replica's account is dropped
///   when it leaves the fleet, so it strands at most one batch for a few heartbeats.
/// - **Fallback**: when the engine fails, the replica paces itself with a local token bucket at its
///   share (the limit and burst divided by the members last seen) and asks the engine again every
///   second; the fleet's availability events say so.
///
/// Wall-clock time: a fleet coordinates processes, which share no virtual clock.
final class FleetQuota: Sendable {
    private struct Waiter {
        let id: Int
        let completion: @Sendable (Bool) -> Void
    }

    private enum Mode {
        case fleet
        /// Pacing itself at its share until the engine answers again.
        case fallback(RateLimitBucket)
    }

    private struct State {
        var mode = Mode.fleet
        /// Leased tokens not spent yet.
        var available = 0
        /// Tokens spent since the last lease: the engine's account of this replica overstates by
        /// that much until the next one.
        var spent = 0
        var leaseInFlight = false
        var lastUse = Date.distantPast
        var waiters: [Waiter] = []
        var nextWaiter = 0
        /// When the earliest look again is due (the next token, an engine retry); a later one asked
        /// for meanwhile is covered by it, an earlier one is scheduled too.
        var nextWake: DispatchTime?
    }

    let bucket: String
    let limit: RateLimit
    private weak let fleet: Fleet?
    private let state = LockedState<State>.make(State())
    private let queue: DispatchQueue

    init(bucket: String, limit: RateLimit, fleet: Fleet, queue: DispatchQueue) {
        self.bucket = bucket
        self.limit = limit
        self.fleet = fleet
        self.queue = queue
    }

    private var rate: Double {
        Double(limit.requests) / limit.per
    }

    private func batchSize(members: Int) -> Int {
        let byRate = Int(rate * 0.2)
        let byBurst = limit.burst / (3 * max(1, members))
        return max(1, min(byRate, byBurst))
    }

    // MARK: Spending

    /// Takes a token at once if one is here (never waits, never calls out under the lock); asks for
    /// the next batch in the background when this one runs low.
    func tryTake() -> Bool {
        let now = Date()
        let (taken, refill) = state.withLock { state -> (Bool, Bool) in
            let taken = take(&state, now: now)
            return (taken, needsLease(state))
        }
        if refill { requestLease() }
        return taken
    }

    /// Waits for a token; `completion(false)` if none comes by `deadline`.
    ///
    /// - Returns: Disposing it gives up waiting (the completion is then not called).
    func wait(deadline: Date?, completion: @escaping @Sendable (Bool) -> Void) -> Disposable {
        let now = Date()
        let (answer, id, refill) = state.withLock { state -> (Bool?, Int, Bool) in
            if state.waiters.isEmpty, take(&state, now: now) { return (true, 0, needsLease(state)) }
            state.nextWaiter += 1
            state.waiters.append(Waiter(id: state.nextWaiter, completion: completion))
            return (nil, state.nextWaiter, true)
        }
        if let answer {
            if refill { requestLease() }
            completion(answer)
            return Disposables.create()
        }
        if refill { requestLease() }
        scheduleWake(after: 0.001)
        if let deadline {
            // A no-op if the waiter was served or left before.
            queue.asyncAfter(deadline: .now() + max(0, deadline.timeIntervalSinceNow)) { [weak self] in self?.expire(id) }
        }
        return Disposables.create { [weak self] in
            self?.state.withLock { $0.waiters.removeAll { $0.id == id } }
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { state -> Waiter? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            return state.waiters.remove(at: index)
        }
        waiter?.completion(false)
    }

    private func take(_ state: inout State, now: Date) -> Bool {
        if state.available > 0 {
            state.available -= 1
            state.spent += 1
            state.lastUse = now
            return true
        }
        guard case .fallback(var local) = state.mode, local.wait(now: now) == 0 else { return false }
        _ = local.reserve(now: now)
        state.mode = .fallback(local)
        return true
    }

    private func needsLease(_ state: State) -> Bool {
        guard case .fleet = state.mode, !state.leaseInFlight else { return false }
        return state.available * 2 <= batchSize(members: fleet?.memberCount ?? 1) || !state.waiters.isEmpty
    }

    // MARK: Leasing

    private func requestLease() {
        guard let fleet else { return }
        let members = fleet.memberCount
        let request = state.withLock { state -> QuotaLeaseRequest? in
            guard !state.leaseInFlight else { return nil }
            state.leaseInFlight = true
            state.spent = 0
            return QuotaLeaseRequest(
                bucket: bucket, rate: rate, capacity: Double(limit.burst), member: fleet.member.id,
                holding: state.available, returned: 0, want: batchSize(members: members)
            )
        }
        guard let request else { return }
        fleet.run("a quota lease", { engine in try await engine.lease(request) }) { [weak self] result in
            self?.leaseEnded(result)
        }
    }

    private func leaseEnded(_ result: Result<QuotaGrant, Error>) {
        let members = fleet?.memberCount ?? 1
        var wake: TimeInterval?
        let granted = state.withLock { state -> [Waiter] in
            state.leaseInFlight = false
            switch result {
            case .success(let grant):
                state.mode = .fleet
                state.available += grant.granted
                if state.available == 0 || !state.waiters.isEmpty { wake = grant.nextTokenIn ?? 0.001 }
            case .failure:
                // Whether the engine granted anything is unknown; the next lease that gets through
                // sets the account right.
                if case .fleet = state.mode {
                    state.mode = .fallback(RateLimitBucket(RateLimit(
                        requests: max(1, limit.requests / max(1, members)), per: limit.per, burst: max(1, limit.burst / max(1, members))
                    )))
                }
                wake = 1
            }
            return serveWaiters(&state)
        }
        for waiter in granted { waiter.completion(true) }
        if let wake { scheduleWake(after: wake) }
        if case .success = result { scheduleIdleCheck() }
    }

    /// Hands tokens to the waiters in order, under the lock; returns those served.
    private func serveWaiters(_ state: inout State) -> [Waiter] {
        var served: [Waiter] = []
        let now = Date()
        while !state.waiters.isEmpty, take(&state, now: now) {
            served.append(state.waiters.removeFirst())
        }
        return served
    }

    /// Looks again after `seconds`: serves waiters (in fallback, as the local bucket allows), asks
    /// the engine for tokens (or, in fallback, whether it is back).
    private func scheduleWake(after seconds: TimeInterval) {
        let due = DispatchTime.now() + min(max(0.001, seconds), 60)
        let schedule = state.withLock { state -> Bool in
            if let next = state.nextWake, next <= due { return false }
            state.nextWake = due
            return true
        }
        guard schedule else { return }
        queue.asyncAfter(deadline: due) { [weak self] in self?.wake(due) }
    }

    /// - Parameter due: When this look again was due: a look superseded by an earlier one still
    ///   looks (it is harmless), but only the latest scheduled clears the mark.
    private func wake(_ due: DispatchTime) {
        let now = Date()
        var again: TimeInterval?
        var lease = false
        let served = state.withLock { state -> [Waiter] in
            if state.nextWake == due { state.nextWake = nil }
            let served = serveWaiters(&state)
            switch state.mode {
            case .fleet:
                lease = !state.waiters.isEmpty || state.available == 0 && !state.leaseInFlight && state.spent > 0
            case .fallback(let local):
                // The engine is asked again every second; the local bucket paces the waiters meanwhile.
                lease = true
                if !state.waiters.isEmpty { again = max(0.001, min(1, local.wait(now: now))) }
            }
            return served
        }
        for waiter in served { waiter.completion(true) }
        if lease { requestLease() }
        if let again { scheduleWake(after: again) }
    }

    /// Gives back the tokens not spent within a second of the last use.
    private func scheduleIdleCheck() {
        queue.asyncAfter(deadline: .now() + 1) { [weak self] in self?.giveBackIfIdle() }
    }

    private func giveBackIfIdle() {
        guard let fleet else { return }
        let now = Date()
        let request = state.withLock { state -> QuotaLeaseRequest? in
            guard case .fleet = state.mode, state.available > 0, state.waiters.isEmpty, !state.leaseInFlight,
                  now.timeIntervalSince(state.lastUse) >= 1 else { return nil }
            state.leaseInFlight = true
            defer { state.available = 0; state.spent = 0 }
            return QuotaLeaseRequest(
                bucket: bucket, rate: rate, capacity: Double(limit.burst), member: fleet.member.id,
                holding: 0, returned: state.available, want: 0
            )
        }
        guard let request else { return }
        fleet.run("a quota give-back", { engine in try await engine.lease(request) }) { [weak self] _ in
            // A waiter that came meanwhile found this give-back in flight and asked for nothing:
            // it is asked for now, or it would wait for a caller that never comes. (A give-back
            // that failed lost its tokens, and the next lease strikes them off the account.)
            let waiting = self?.state.withLock { state -> Bool in
                state.leaseInFlight = false
                return !state.waiters.isEmpty
            } ?? false
            if waiting { self?.requestLease() }
        }
    }

    /// Everything leased and not spent goes back, and the spent is reported (leaving the fleet).
    func settleForLeaving() -> QuotaLeaseRequest? {
        guard let fleet else { return nil }
        return state.withLock { state -> QuotaLeaseRequest? in
            guard state.available + state.spent > 0 else { return nil }
            defer { state.available = 0; state.spent = 0 }
            return QuotaLeaseRequest(
                bucket: bucket, rate: rate, capacity: Double(limit.burst), member: fleet.member.id,
                holding: 0, returned: state.available, want: 0
            )
        }
    }

    /// Its account now, for tests and diagnostics.
    var snapshot: (available: Int, spent: Int, waiters: Int, leaseInFlight: Bool, wakeScheduled: Bool, fallingBack: Bool) {
        state.withLock { state in
            let fallingBack: Bool
            if case .fallback = state.mode { fallingBack = true } else { fallingBack = false }
            return (state.available, state.spent, state.waiters.count, state.leaseInFlight, state.nextWake != nil, fallingBack)
        }
    }

    /// Whether it paces itself locally because the engine failed (for tests and the demo).
    var isFallingBack: Bool {
        state.withLock { if case .fallback = $0.mode { return true } else { return false } }
    }
}
