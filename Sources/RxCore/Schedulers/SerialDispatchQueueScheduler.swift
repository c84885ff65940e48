import Dispatch
import Foundation

/// Runs work in order on a serial Dispatch queue; the scheduler to give timers in a daemon.
///
/// Unlike `MainScheduler`, it needs no run loop: daemons whose main queue never runs use this
/// (or `ConcurrentDispatchQueueScheduler`) for every timer, retry delay and probe.
///
/// - Note: Thread-safe. Actions run on the scheduler's queue, one at a time.
public final class SerialDispatchQueueScheduler: SchedulerType {
    private let configuration: DispatchQueueConfiguration

    /// Creates a scheduler on a new serial queue of its own with the given quality of service.
    public convenience init(
        qos: DispatchQoS,
        internalSerialQueueName: String = "rxnetworkkit.serial",
        leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        self.init(queue: DispatchQueue(label: internalSerialQueueName, qos: qos), leeway: leeway)
    }

    /// Creates a scheduler on a new serial queue of its own.
    public convenience init(
        internalSerialQueueName: String,
        leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        self.init(queue: DispatchQueue(label: internalSerialQueueName), leeway: leeway)
    }

    /// Creates a scheduler that runs on a new serial queue targeting `queue`, so that work stays
    /// ordered even when `queue` is concurrent.
    public convenience init(
        queue: DispatchQueue,
        internalSerialQueueName: String,
        leeway: DispatchTimeInterval = .nanoseconds(0)
    ) {
        self.init(queue: DispatchQueue(label: internalSerialQueueName, target: queue), leeway: leeway)
    }

    /// Creates a scheduler on `queue`, which must be serial.
    public init(serialQueue queue: DispatchQueue, leeway: DispatchTimeInterval = .nanoseconds(0)) {
        configuration = DispatchQueueConfiguration(queue: queue, leeway: leeway)
    }

    private convenience init(queue: DispatchQueue, leeway: DispatchTimeInterval) {
        self.init(serialQueue: queue, leeway: leeway)
    }

    /// The wall-clock time.
    public var now: Date {
        Date()
    }

    /// Schedules `action` on the queue.
    public func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable {
        configuration.schedule(state, action: action)
    }

    /// Schedules `action` on the queue after `dueTime`; disposing cancels the timer at once.
    public func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        configuration.scheduleRelative(state, dueTime: dueTime, action: action)
    }

    /// Schedules `action` every `period` after `startAfter`, on a Dispatch timer.
    public func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        configuration.schedulePeriodic(state, startAfter: startAfter, period: period, action: action)
    }
}
