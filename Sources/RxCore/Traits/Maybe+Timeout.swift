extension Maybe {
    /// Fails with `RxError.timeout` if no outcome comes within `dueTime` of subscription.
    ///
    /// - Parameters:
    ///   - dueTime: The longest wait (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler.
    /// - Returns: The outcome, or `RxError.timeout`; on time-out the source is disposed.
    /// - Note: The outcome arrives on the source's thread, the timeout error on `scheduler`.
    ///   Thread-safe.
    public func timeout(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Maybe<Element> {
        Maybe(unchecked: source.timeout(dueTime, scheduler: scheduler))
    }

    /// Switches to `other` if no outcome comes within `dueTime` of subscription.
    ///
    /// - Parameters:
    ///   - dueTime: The longest wait (fractional seconds are kept).
    ///   - other: The fallback, subscribed only at the time-out.
    ///   - scheduler: Where the timer runs. Required.
    /// - Returns: The source's outcome, or `other`'s after a time-out (the source is then disposed).
    /// - Note: The outcome arrives on the source's or `other`'s thread. Thread-safe.
    public func timeout(_ dueTime: RxTimeInterval, other: Maybe<Element>, scheduler: any SchedulerType) -> Maybe<Element> {
        Maybe(unchecked: source.timeout(dueTime, other: other.source, scheduler: scheduler))
    }
}
