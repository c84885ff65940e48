import Dispatch
import Foundation

/// The scheduling logic shared by the Dispatch-backed schedulers.
struct DispatchQueueConfiguration: Sendable {
    let queue: DispatchQueue
    let leeway: DispatchTimeInterval

    func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable {
        let scheduled = ScheduledAction(state: state, action: action)
        queue.async { scheduled.run() }
        return scheduled
    }

    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        let scheduled = ScheduledAction(state: state, action: action)
        guard dueTime.timeInterval < .infinity else {
            // `.never` (or NaN): nothing will ever run, so keep nothing alive. Minus infinity is a
            // due time in the past: it runs at once, as on every other scheduler.
            return scheduled
        }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + dueTime.dispatchInterval, leeway: leeway)
        timer.setEventHandler { scheduled.run() }
        // Cancelling the source releases its handler, and with it the action, at once: a disposed
        // 30 s timeout does not stay alive for 30 s.
        let source = TimerSourceHandle(timer)
        scheduled.setCancellation { source.cancel() }
        timer.resume()
        return scheduled
    }

    func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        let periodic = PeriodicTimerWork(state: state, action: action)
        guard startAfter.timeInterval < .infinity, period.timeInterval < .infinity else { return periodic }
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(
            deadline: .now() + startAfter.dispatchInterval,
            repeating: period.dispatchInterval,
            leeway: leeway
        )
        timer.setEventHandler { periodic.tick() }
        periodic.attach(TimerSourceHandle(timer))
        timer.resume()
        return periodic
    }
}

/// Owns a Dispatch timer source and cancels it once.
// @unchecked Sendable: Dispatch sources are thread-safe; `cancel` is idempotent in Dispatch.
final class TimerSourceHandle: @unchecked Sendable {
    private let source: DispatchSourceTimer

    init(_ source: DispatchSourceTimer) {
        self.source = source
    }

    func cancel() {
        source.setEventHandler {}
        source.cancel()
    }
}

/// The state of a periodic Dispatch timer; ticks are serialized by the timer source itself.
// @unchecked Sendable: `state` and the timer handle live in one LockedState.
final class PeriodicTimerWork<StateType>: Cancelable, @unchecked Sendable {
    private struct State {
        var value: StateType
        var timer: TimerSourceHandle?
        var isDisposed = false
    }

    private let state: LockedState<State>
    private let action: @Sendable (StateType) -> StateType

    init(state: StateType, action: @escaping @Sendable (StateType) -> StateType) {
        self.state = .make(State(value: state))
        self.action = action
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    func attach(_ timer: TimerSourceHandle) {
        let cancelNow = state.withLock { state -> Bool in
            if state.isDisposed { return true }
            state.timer = timer
            return false
        }
        if cancelNow { timer.cancel() }
    }

    func tick() {
        guard let current = state.withLock({ $0.isDisposed ? nil : $0.value }) else { return }
        let next = action(current)
        state.withLock { state in
            if !state.isDisposed { state.value = next }
        }
    }

    func dispose() {
        let timer = state.withLock { state -> TimerSourceHandle? in
            state.isDisposed = true
            defer { state.timer = nil }
            return state.timer
        }
        timer?.cancel()
    }
}
