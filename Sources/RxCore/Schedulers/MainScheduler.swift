import Dispatch
import Foundation

/// Runs work on the main queue, as RxSwift's `MainScheduler` does.
///
/// A Linux daemon's main queue only runs under `dispatchMain()` or a running main `RunLoop`; work
/// scheduled here otherwise never happens. Nothing in this package defaults to it: pass it only
/// where the main queue is serviced.
///
/// - Note: Thread-safe. `schedule` runs the action at once when called on the main thread.
public final class MainScheduler: SchedulerType {
    /// The shared instance.
    public static let instance = MainScheduler()

    /// A variant that always enqueues, even when already on the main thread.
    public static let asyncInstance = SerialDispatchQueueScheduler(serialQueue: .main)

    private let configuration = DispatchQueueConfiguration(queue: .main, leeway: .nanoseconds(0))

    private init() {}

    /// The wall-clock time.
    public var now: Date {
        Date()
    }

    public func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        if Thread.isMainThread {
            return action(state)
        }
        return configuration.schedule(state, action: action)
    }

    public func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping (StateType) -> StateType
    ) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
