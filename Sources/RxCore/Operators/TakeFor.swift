extension ObservableType {
    /// The elements the source emits during `duration` from subscription; then completion.
    ///
    /// The timer starts before the source is subscribed; when it fires the sequence completes and
    /// the source is disposed. An error or completion of the source before then passes through and
    /// cancels the timer.
    ///
    /// - Parameters:
    ///   - duration: How long to forward elements (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler.
    /// - Returns: A prefix of the source in time; disposing it disposes the source and the timer.
    /// - Note: Elements arrive on the source's thread; the completion the timer causes arrives on
    ///   `scheduler`, or, if an element is being delivered meanwhile, right after it on the source's
    ///   thread: deliveries never overlap. Thread-safe.
    public func take(for duration: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        // `take(until:)` subscribes its trigger first, which is when the timer starts, and serializes
        // the completion it causes with the source's deliveries.
        take(until: Observable<Int>.timer(duration, scheduler: scheduler))
    }
}
