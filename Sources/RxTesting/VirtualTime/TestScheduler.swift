import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// A scheduler in virtual time, for testing time-based code in milliseconds of real time.
///
/// Time is an integer clock of ticks; `resolution` is the number of seconds one tick stands for.
/// Nothing runs until the test drives the clock with `start()`, `advanceTo(_:)` or `advance(by:)`;
/// work then runs on the driving thread in order of due tick, and work due at the same tick runs in
/// the order it was scheduled. The clock never goes back: work scheduled for a past tick runs at
/// the current one.
///
/// Converting an `RxTimeInterval` to ticks rounds to the nearest tick, except that a positive
/// interval is never less than one tick (a 0.5 s delay at resolution 1.0 is 1 tick, never 0), and a
/// negative one counts as zero. An infinite interval (`.never`), or one past `Int.max` ticks, never
/// comes due: such work is not queued at all.
///
/// As in RxTest, by default work an operator schedules for "now" (`schedule(_:action:)`, or
/// `scheduleRelative` / `schedulePeriodic` with a due time that is already reached) runs one tick
/// later: `simulateProcessingDelay`. `Observable.just(1, scheduler:)` subscribed at 200 sends its
/// element at 201 and completes at 202, as an RxSwift test expects. With
/// `simulateProcessingDelay: false` such work runs at the current tick instead, after the work
/// already queued for it. The test-driving calls (`scheduleAt`, `scheduleRelative(ticks:)`, hot and
/// cold observables, `start`) are never delayed.
///
/// - Note: Thread-safe: every entry point may be called from any thread, and scheduled work may be
///   disposed from any thread, although a test normally drives it from one. Work runs on the thread
///   that calls `start()`/`advanceTo(_:)`. Driving the clock from inside a running action does
///   nothing (it returns at once).
public final class TestScheduler: SchedulerType {
    private enum RunPhase {
        case idle
        case running
        case stopping
    }

    private struct State {
        var clock: TestTime
        var queue = VirtualTimeQueue()
        var nextID = 0
        var phase = RunPhase.idle
    }

    /// How many seconds one tick stands for.
    public let resolution: Double

    /// Whether work scheduled for the current tick (or earlier) runs one tick later (RxTest's rule).
    public let simulateProcessingDelay: Bool

    private let state: LockedState<State>

    /// Creates a scheduler whose clock starts at `initialClock`.
    ///
    /// - Parameters:
    ///   - initialClock: The starting tick.
    ///   - resolution: Seconds per tick (1.0: a tick is a second; 0.001: a millisecond). A value that
    ///     is not positive and finite is replaced by 1.0.
    ///   - simulateProcessingDelay: Whether work an operator schedules for the current tick runs one
    ///     tick later, as with RxTest's `TestScheduler` (the default); false runs it at the current
    ///     tick.
    public init(initialClock: TestTime = 0, resolution: Double = 1.0, simulateProcessingDelay: Bool = true) {
        self.resolution = resolution.isFinite && resolution > 0 ? resolution : 1.0
        self.simulateProcessingDelay = simulateProcessingDelay
        self.state = .make(State(clock: initialClock))
    }

    /// The current tick.
    public var clock: TestTime {
        state.withLock { $0.clock }
    }

    /// The current virtual time: `clock * resolution` seconds after `Date`'s reference date
    /// (2001-01-01), where a `Date` is most precise, so that differences of `now` values are exact to
    /// far below a tick (operators such as `throttle` subtract them).
    public var now: Date {
        Date(timeIntervalSinceReferenceDate: Double(clock) * resolution)
    }

    /// Whether no work is waiting.
    public var isIdle: Bool {
        state.withLock { $0.queue.isEmpty }
    }

    /// The number of ticks `interval` lasts at this resolution, or nil if it never elapses.
    ///
    /// Rounds to the nearest tick; a positive interval is at least 1 tick; a negative one is 0.
    public func ticks(for interval: RxTimeInterval) -> TestTime? {
        let seconds = interval.timeInterval
        guard !seconds.isNaN else { return nil }
        guard seconds > 0 else { return 0 }
        let exact = seconds / resolution
        guard exact.isFinite, exact < Double(TestTime.max) else { return nil }
        return max(1, TestTime(exact.rounded()))
    }

    // MARK: - SchedulerType

    /// Schedules `action` at the current tick, after the work already queued for it.
    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        scheduleAbsolute(at: nil, delayingNow: simulateProcessingDelay) { action(state) }
    }

    /// Schedules `action` `dueTime` from now, converted to ticks (see the type's documentation).
    public func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        guard let ticks = ticks(for: dueTime) else { return Disposables.create() }
        guard ticks > 0 else {
            return scheduleAbsolute(at: nil, delayingNow: simulateProcessingDelay) { action(state) }
        }
        return scheduleRelative(ticks: ticks) { action(state) }
    }

    /// Schedules `action` after `startAfter`, then every `period`, in virtual time.
    ///
    /// Run `n` (from 0) is due `ticks(startAfter + n * period)` after the call, so rounding never
    /// accumulates; a period shorter than one tick counts as one tick.
    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        // RxTest's processing delay moves a first run due now one tick later, and the period counts
        // from that run.
        let now = clock
        let delayed = simulateProcessingDelay && ticks(for: startAfter) == 0 && now < TestTime.max
        let work = VirtualPeriodicWork(
            scheduler: self, origin: delayed ? now + 1 : now, startAfter: startAfter, period: period,
            state: state, action: action
        )
        work.scheduleNext()
        return work
    }

    // MARK: - Virtual time scheduling

    /// Schedules `action` at the absolute tick `time` (at the current tick if `time` is past).
    ///
    /// - Returns: A disposable that removes the action if it has not run yet.
    @discardableResult
    public func scheduleAt(_ time: TestTime, action: @escaping () -> Void) -> Disposable {
        scheduleAbsolute(at: time) {
            action()
            return Disposables.create()
        }
    }

    /// Schedules `action` `ticks` ticks from now.
    @discardableResult
    public func scheduleRelative(ticks: TestTime, action: @escaping () -> Disposable) -> Disposable {
        let target = state.withLock { state -> TestTime? in
            let (sum, overflow) = state.clock.addingReportingOverflow(max(0, ticks))
            return overflow ? nil : sum
        }
        guard let target else { return Disposables.create() }
        return scheduleAbsolute(at: target, action: action)
    }

    /// Queues `action` at `time`, or at the current tick if `time` is nil or past.
    @discardableResult
    func scheduleAbsolute(
        at time: TestTime?, delayingNow: Bool = false, action: @escaping () -> Disposable
    ) -> Disposable {
        state.withLock { state -> VirtualScheduledItem in
            let due = max(time ?? state.clock, state.clock)
            let item = VirtualScheduledItem(
                id: state.nextID,
                time: delayingNow && due == state.clock && due < TestTime.max ? due + 1 : due,
                scheduler: self,
                action: action
            )
            state.nextID += 1
            state.queue.insert(item)
            return item
        }
    }

    /// Removes a disposed item that had not run.
    func remove(_ item: VirtualScheduledItem) {
        // The removed reference is dropped after unlocking.
        _ = state.withLock { $0.queue.remove(id: item.id) }
    }

    // MARK: - Driving the clock

    /// Runs all work, advancing the clock to each item's tick, until none is left or `stop()` is
    /// called. Work that keeps rescheduling itself (an undisposed `interval`) runs forever.
    public func start() {
        run(until: nil)
    }

    /// Runs the work due at or before `time`, then sets the clock to `time`.
    ///
    /// Does nothing if `time` is before the current clock, or if the scheduler is already running.
    /// After `stop()` the clock stays at the last work that ran.
    public func advanceTo(_ time: TestTime) {
        guard time >= clock else { return }
        run(until: time)
    }

    /// Advances the clock by `ticks` ticks, running the work that comes due; see `advanceTo(_:)`.
    public func advance(by ticks: TestTime) {
        let target = state.withLock { state -> TestTime in
            let (sum, overflow) = state.clock.addingReportingOverflow(max(0, ticks))
            return overflow ? TestTime.max : sum
        }
        advanceTo(target)
    }

    /// Advances the clock by `interval` converted to ticks; see `advanceTo(_:)`.
    public func advance(by interval: RxTimeInterval) {
        advance(by: ticks(for: interval) ?? TestTime.max)
    }

    /// Makes the running `start()`/`advanceTo(_:)` return after the current action.
    public func stop() {
        state.withLock { state in
            if state.phase == .running { state.phase = .stopping }
        }
    }

    private func run(until limit: TestTime?) {
        let began = state.withLock { state -> Bool in
            guard state.phase == .idle else { return false }
            state.phase = .running
            return true
        }
        guard began else { return }
        while let item = nextItem(notAfter: limit) {
            item.run()
        }
        state.withLock { state in
            if let limit, state.phase == .running, state.clock < limit {
                state.clock = limit
            }
            state.phase = .idle
        }
    }

    private func nextItem(notAfter limit: TestTime?) -> VirtualScheduledItem? {
        state.withLock { state -> VirtualScheduledItem? in
            guard state.phase == .running, let item = state.queue.popFirst(notAfter: limit) else { return nil }
            state.clock = max(state.clock, item.time)
            return item
        }
    }
}
