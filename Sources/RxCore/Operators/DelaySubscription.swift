extension ObservableType {
    /// Subscribes to the source only after `dueTime`; its events then pass through unchanged.
    ///
    /// - Parameters:
    ///   - dueTime: The wait before subscribing (fractional seconds are kept).
    ///   - scheduler: Where the subscription happens. Required: nothing here defaults to the main
    ///     scheduler.
    /// - Returns: A sequence; disposing it before `dueTime` cancels the timer and the source is never
    ///   subscribed.
    /// - Note: The source is subscribed on `scheduler`; events arrive on whichever thread the source
    ///   sends them. Thread-safe.
    public func delaySubscription(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        DelaySubscriptionObservable(source: asObservable(), dueTime: dueTime, scheduler: scheduler)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class DelaySubscriptionObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let scheduler: any SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, scheduler: any SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = PassThroughSink(downstream: observer)
        // The scheduled action's result is the source's subscription: disposing the action before it
        // runs cancels the timer, and after it ran disposes the subscription.
        sink.setUpstream(classDisposable(scheduler.scheduleRelative(source, dueTime: dueTime) { source in
            source.subscribe(sink)
        }))
        return sink
    }
}
