extension Single {
    /// Delivers a success `dueTime` later; a failure is delivered at once.
    ///
    /// - Parameters:
    ///   - dueTime: The shift (fractional seconds are kept).
    ///   - scheduler: Where the success is delivered from. Required.
    /// - Returns: The same result, a success shifted by `dueTime`.
    /// - Note: A success arrives on `scheduler`, a failure on the source's thread. Thread-safe.
    public func delay(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Single<Element> {
        Single(unchecked: source.delay(dueTime, scheduler: scheduler))
    }

    /// Subscribes to the source only after `dueTime`.
    ///
    /// - Parameters:
    ///   - dueTime: The wait before subscribing (fractional seconds are kept).
    ///   - scheduler: Where the subscription happens. Required.
    /// - Returns: The same result; disposing before `dueTime` means the source is never subscribed.
    /// - Note: The result arrives on the source's thread. Thread-safe.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Single<Element> {
        Single(unchecked: source.delaySubscription(dueTime, scheduler: scheduler))
    }
}
