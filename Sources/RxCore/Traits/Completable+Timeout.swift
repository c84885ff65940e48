extension Completable {
    /// Fails with `RxError.timeout` if this `Completable` does not terminate within `dueTime` of
    /// subscription.
    ///
    /// - Parameters:
    ///   - dueTime: The longest wait (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler.
    /// - Returns: The same event, or `RxError.timeout`; on time-out the work is disposed.
    /// - Note: The event arrives on the source's thread, the timeout error on `scheduler`.
    ///   Thread-safe.
    public func timeout(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Completable {
        Completable(unchecked: source.timeout(dueTime, scheduler: scheduler))
    }

    /// Switches to `other` if this `Completable` does not terminate within `dueTime` of
    /// subscription.
    ///
    /// - Parameters:
    ///   - dueTime: The longest wait (fractional seconds are kept).
    ///   - other: The fallback, subscribed only at the time-out.
    ///   - scheduler: Where the timer runs. Required.
    /// - Returns: This one's event, or `other`'s after a time-out (this one is then disposed).
    /// - Note: The event arrives on the source's or `other`'s thread. Thread-safe.
    public func timeout(_ dueTime: RxTimeInterval, other: Completable, scheduler: any SchedulerType) -> Completable {
        Completable(unchecked: source.timeout(dueTime, other: other.source, scheduler: scheduler))
    }
}
