import Dispatch
import Foundation

/// Runs work on a (usually concurrent) Dispatch queue; actions may run in parallel.
///
/// - Note: Thread-safe. Operators that need ordering (`observe(on:)`) must be given a serial
///   scheduler instead.
public final class ConcurrentDispatchQueueScheduler: SchedulerType {
    private let configuration: DispatchQueueConfiguration

    /// Creates a scheduler on `queue`.
    public init(queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        configuration = DispatchQueueConfiguration(queue: queue, leeway: leeway)
    }

    /// Creates a scheduler on the global queue of the given quality of service.
    public convenience init(qos: DispatchQoS, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        self.init(queue: DispatchQueue.global(qos: qos.qosClass), leeway: leeway)
    }

    /// The wall-clock time.
    public var now: Date {
        Date()
    }

    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable {
        configuration.schedule(state, action: action)
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

extension ConcurrentDispatchQueueScheduler {
    /// A shared scheduler on the global utility queue: the default for retry delays, so that nothing
    /// defaults to the main queue (a daemon's main queue may never run).
    public static let background = ConcurrentDispatchQueueScheduler(qos: .utility)
}
