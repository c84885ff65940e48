extension Single {
    /// Fails with `RxError.timeout` if no result comes within `dueTime` of subscription.
    ///
    /// - Parameters:
    ///   - dueTime: The longest wait (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler.
    /// - Returns: The result, or `RxError.timeout`; on time-out the source is disposed (so a request
    ///   is cancelled).
    /// - Note: The result arrives on the source's thread, the timeout error on `scheduler`.
    ///   Thread-safe.
    public func timeout(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Single<Element> {
        Single(unchecked: source.timeout(dueTime, scheduler: scheduler))
    }

    /// Switches to `other` if no result comes within `dueTime` of subscription.
    ///
    /// - Parameters:
    ///   - dueTime: The longest wait (fractional seconds are kept).
    ///   - other: The fallback, subscribed only at the time-out.
    ///   - scheduler: Where the timer runs. Required.
    /// - Returns: The source's result, or `other`'s after a time-out (the source is then disposed).
    /// - Note: The result arrives on the source's or `other`'s thread. Thread-safe.
    public func timeout(_ dueTime: RxTimeInterval, other: Single<Element>, scheduler: any SchedulerType) -> Single<Element> {
        Single(unchecked: source.timeout(dueTime, other: other.source, scheduler: scheduler))
    }
}
