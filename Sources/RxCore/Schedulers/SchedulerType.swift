import Foundation

/// Runs work now, in order (a queue, a thread, or the caller's thread).
///
/// - Note: Implementations are thread-safe. An action may run on another thread than the caller's.
public protocol ImmediateSchedulerType: Sendable {
    /// Schedules `action` to run as soon as possible with `state`.
    ///
    /// - Returns: A disposable that cancels the action if it has not started, and disposes what
    ///   the action returned if it has.
    func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable
}

/// A scheduler that also knows time: the one thing every time-based operator takes, so that tests
/// can drive it in virtual time (`TestScheduler`).
public protocol SchedulerType: ImmediateSchedulerType {
    /// The scheduler's current time (virtual in tests).
    var now: Date { get }

    /// Schedules `action` to run after `dueTime`.
    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable

    /// Schedules `action` to run after `startAfter`, then every `period`, each run getting the state
    /// the previous one returned. Disposing stops it.
    func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable
}

extension SchedulerType {
    /// Default periodic scheduling by rescheduling after each run; schedulers with a native timer
    /// override it.
    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        let periodic = PeriodicWork(scheduler: self, period: period, state: state, action: action)
        periodic.start(after: startAfter)
        return periodic
    }
}

/// Runs a periodic action by chaining relative schedules; cancelled by dispose.
// @unchecked Sendable: the state and the current schedule live in one LockedState.
final class PeriodicWork<Scheduler: SchedulerType, StateType>: Disposable, @unchecked Sendable {
    private struct State {
        var value: StateType
        var isDisposed = false
        var scheduled: Disposable?
        /// Counts `start` calls: a schedule whose run already began the next one is not stored
        /// over the newer schedule.
        var generation = 0
    }

    private let scheduler: Scheduler
    private let period: RxTimeInterval
    private let action: @Sendable (StateType) -> StateType
    private let state: LockedState<State>

    init(scheduler: Scheduler, period: RxTimeInterval, state: StateType, action: @escaping @Sendable (StateType) -> StateType) {
        self.scheduler = scheduler
        self.period = period
        self.action = action
        self.state = .make(State(value: state))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    func start(after delay: RxTimeInterval) {
        let generation = state.withLock { state -> Int in
            state.generation += 1
            return state.generation
        }
        let scheduled = scheduler.scheduleRelative((), dueTime: delay) { [self] _ in
            tick()
            return Disposables.create()
        }
        let stale = state.withLock { state -> Disposable? in
            // Disposed meanwhile, or already run (its tick started a newer schedule): not kept.
            if state.isDisposed || state.generation != generation { return scheduled }
            state.scheduled = scheduled
            return nil
        }
        stale?.dispose()
    }

    private func tick() {
        // The action runs outside the lock; only one tick is ever in flight.
        guard let current = state.withLock({ $0.isDisposed ? nil : $0.value }) else { return }
        let next = action(current)
        let proceed = state.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            state.value = next
            return true
        }
        if proceed {
            start(after: period)
        }
    }

    func dispose() {
        let scheduled = state.withLock { state -> Disposable? in
            state.isDisposed = true
            defer { state.scheduled = nil }
            return state.scheduled
        }
        scheduled?.dispose()
    }
}
