extension Maybe {
    /// Delivers an element or an empty completion `dueTime` later; an error is delivered at once.
    ///
    /// - Parameters:
    ///   - dueTime: The shift (fractional seconds are kept).
    ///   - scheduler: Where the shifted events are delivered from. Required.
    /// - Returns: The same outcome, an element or completion shifted by `dueTime`.
    /// - Note: An element or completion arrives on `scheduler`, an error on the source's thread.
    ///   Thread-safe.
    public func delay(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Maybe<Element> {
        Maybe(unchecked: source.delay(dueTime, scheduler: scheduler))
    }

    /// Subscribes to the source only after `dueTime`.
    ///
    /// - Parameters:
    ///   - dueTime: The wait before subscribing (fractional seconds are kept).
    ///   - scheduler: Where the subscription happens. Required.
    /// - Returns: The same outcome; disposing before `dueTime` means the source is never subscribed.
    /// - Note: The outcome arrives on the source's thread. Thread-safe.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Maybe<Element> {
        Maybe(unchecked: source.delaySubscription(dueTime, scheduler: scheduler))
    }
}
