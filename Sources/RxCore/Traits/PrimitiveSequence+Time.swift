extension PrimitiveSequence {
    /// Delivers an element or completion `dueTime` later; an error is delivered at once.
    ///
    /// - Parameters:
    ///   - dueTime: The shift (fractional seconds are kept).
    ///   - scheduler: Where the shifted events are delivered from. Required.
    /// - Returns: The same outcome, an element or completion shifted by `dueTime`.
    /// - Note: An element or completion arrives on `scheduler`, an error on the source's thread.
    ///   Thread-safe.
    public func delay(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.delay(dueTime, scheduler: scheduler))
    }

    /// Subscribes to the source only after `dueTime`.
    ///
    /// - Parameters:
    ///   - dueTime: The wait before subscribing (fractional seconds are kept).
    ///   - scheduler: Where the subscription happens. Required.
    /// - Returns: The same outcome; disposing before `dueTime` means the source is never subscribed.
    /// - Note: The outcome arrives on the source's thread. Thread-safe.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.delaySubscription(dueTime, scheduler: scheduler))
    }

    /// Fails with `RxError.timeout` if no outcome comes within `dueTime` of subscription.
    ///
    /// - Parameters:
    ///   - dueTime: The longest wait (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler.
    /// - Returns: The outcome, or `RxError.timeout`; on time-out the source is disposed (so a request
    ///   is cancelled).
    /// - Note: The outcome arrives on the source's thread, the timeout error on `scheduler`.
    ///   Thread-safe.
    public func timeout(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.timeout(dueTime, scheduler: scheduler))
    }

    /// Switches to `other` if no outcome comes within `dueTime` of subscription.
    ///
    /// - Parameters:
    ///   - dueTime: The longest wait (fractional seconds are kept).
    ///   - other: The fallback, subscribed only at the time-out.
    ///   - scheduler: Where the timer runs. Required.
    /// - Returns: The source's outcome, or `other`'s after a time-out (the source is then disposed).
    /// - Note: The outcome arrives on the source's or `other`'s thread. Thread-safe.
    public func timeout(
        _ dueTime: RxTimeInterval, other: PrimitiveSequence<Trait, Element>, scheduler: any SchedulerType
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.timeout(dueTime, other: other.source, scheduler: scheduler))
    }
}
