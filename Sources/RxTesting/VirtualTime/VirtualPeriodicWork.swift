@_spi(RxNetworkKitInternals) import RxCore

/// Periodic work in virtual time: run `n` is due at `origin + ticks(startAfter + n * period)`,
/// computed from the origin each time so that rounding never drifts.
// @unchecked Sendable: the state value, the run count and the pending item live in one LockedState.
final class VirtualPeriodicWork<StateType>: Cancelable, @unchecked Sendable {
    private struct State {
        var value: StateType
        var runs = 0
        var pending: Disposable?
        var isDisposed = false
        // Weak: the queued item holds this work, which must not keep the scheduler (and its queue)
        // alive.
        weak var scheduler: TestScheduler?
    }

    private let origin: TestTime
    private let startAfter: RxTimeInterval
    private let period: RxTimeInterval
    private let action: (StateType) -> StateType
    private let state: LockedState<State>

    init(
        scheduler: TestScheduler,
        origin: TestTime,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        state: StateType,
        action: @escaping (StateType) -> StateType
    ) {
        self.origin = origin
        self.startAfter = startAfter
        self.period = period
        self.action = action
        self.state = .make(State(value: state, scheduler: scheduler))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// Queues the next run, unless disposed or the next due tick never comes.
    func scheduleNext() {
        let (runs, scheduler) = state.withLock { ($0.runs, $0.scheduler) }
        guard let scheduler else { return }
        guard let due = dueTick(ofRun: runs, scheduler: scheduler) else { return }
        let item = scheduler.scheduleAbsolute(at: due) { [self] in
            tick()
            return Disposables.create()
        }
        let stale = state.withLock { state -> Disposable? in
            if state.isDisposed { return item }
            state.pending = item
            return nil
        }
        stale?.dispose()
    }

    private func dueTick(ofRun run: Int, scheduler: TestScheduler) -> TestTime? {
        guard let first = scheduler.ticks(for: startAfter), scheduler.ticks(for: period) != nil else {
            return nil
        }
        var offset = first
        if run > 0 {
            // Each run is at least one tick after the previous one, so a zero period cannot spin.
            let floor = first.addingReportingOverflow(run)
            guard !floor.overflow, let exact = scheduler.ticks(for: startAfter + period * Double(run)) else {
                return nil
            }
            offset = max(exact, floor.partialValue)
        }
        let (due, overflow) = origin.addingReportingOverflow(offset)
        return overflow ? nil : due
    }

    private func tick() {
        // The action runs outside the lock; only one run is ever in flight.
        guard let current = state.withLock({ $0.isDisposed ? nil : $0.value }) else { return }
        let next = action(current)
        let proceed = state.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            state.value = next
            state.runs += 1
            state.pending = nil
            return true
        }
        if proceed {
            scheduleNext()
        }
    }

    func dispose() {
        let pending = state.withLock { state -> Disposable? in
            state.isDisposed = true
            state.scheduler = nil
            defer { state.pending = nil }
            return state.pending
        }
        pending?.dispose()
    }
}
