import Dispatch
import Foundation
import Synchronization

/// Runs work on the main queue, as RxSwift's `MainScheduler` does.
///
/// A Linux daemon's main queue only runs under `dispatchMain()` or a running main `RunLoop`; work
/// scheduled here otherwise never happens. Nothing in this package defaults to it: pass it only
/// where the main queue is serviced.
///
/// - Note: Thread-safe. `schedule` runs the action at once when called on the main thread while
///   no other work of this scheduler is queued or running; otherwise it queues it behind that
///   work, so that nested work runs in the order it was scheduled (RxSwift's rule).
public final class MainScheduler: SchedulerType {
    /// The shared instance.
    public static let instance = MainScheduler()

    /// A variant that always enqueues, even when already on the main thread.
    public static let asyncInstance = SerialDispatchQueueScheduler(serialQueue: .main)

    private let configuration = DispatchQueueConfiguration(queue: .main, leeway: .nanoseconds(0))

    /// Work scheduled through `schedule` and not finished yet (queued or running).
    private let unfinished = Atomic<Int>(0)

    private init() {}

    /// The wall-clock time.
    public var now: Date {
        Date()
    }

    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable {
        let earlier = unfinished.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue
        if earlier == 0 && Thread.isMainThread {
            defer { unfinished.wrappingSubtract(1, ordering: .acquiringAndReleasing) }
            return action(state)
        }
        // Running it inline now would overtake the work already queued or running (an action that
        // schedules more would see that run in the middle of itself).
        let scheduled = ScheduledAction(state: state, action: action)
        DispatchQueue.main.async { [self] in
            scheduled.run()
            unfinished.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        }
        return scheduled
    }

    public func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
