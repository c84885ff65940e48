extension Completable {
    /// Delivers completion `dueTime` later; an error is delivered at once.
    ///
    /// - Parameters:
    ///   - dueTime: The shift (fractional seconds are kept).
    ///   - scheduler: Where completion is delivered from. Required.
    /// - Returns: The same event, completion shifted by `dueTime`.
    /// - Note: Completion arrives on `scheduler`, an error on the source's thread. Thread-safe.
    public func delay(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Completable {
        Completable(unchecked: source.delay(dueTime, scheduler: scheduler))
    }

    /// Subscribes to the source only after `dueTime`.
    ///
    /// - Parameters:
    ///   - dueTime: The wait before subscribing (fractional seconds are kept).
    ///   - scheduler: Where the subscription happens. Required.
    /// - Returns: The same event; disposing before `dueTime` means the source is never subscribed.
    /// - Note: The event arrives on the source's thread. Thread-safe.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Completable {
        Completable(unchecked: source.delaySubscription(dueTime, scheduler: scheduler))
    }
}
