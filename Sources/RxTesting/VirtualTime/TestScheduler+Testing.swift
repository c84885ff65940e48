@_spi(RxNetworkKitInternals) import RxCore

extension TestScheduler {
    /// Creates an observer that records events with this scheduler's clock.
    public func createObserver<Element>(_ type: Element.Type) -> TestableObserver<Element> {
        TestableObserver(scheduler: self)
    }

    /// Creates an observable that sends `events` at their absolute ticks to whoever is subscribed
    /// then. The events are queued now: drive the clock past the last one (or let the scheduler
    /// go) so that none is left waiting.
    public func createHotObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        HotObservable(scheduler: self, recordedEvents: events)
    }

    /// Creates an observable that sends `events` to each subscriber at ticks relative to its
    /// subscription.
    public func createColdObservable<Element>(_ events: [Recorded<Event<Element>>]) -> TestableObservable<Element> {
        ColdObservable(scheduler: self, recordedEvents: events)
    }

    /// Creates the sequence at `created`, subscribes to it at `subscribed`, disposes of the
    /// subscription at `disposed`, runs the scheduler until no work is left, and returns what the
    /// subscriber recorded (RxTest's defaults: 100, 200, 1000).
    ///
    /// Creating, subscribing and disposing happen exactly at their ticks; work the sequence's
    /// operators schedule for "now" runs one tick later unless the scheduler was made with
    /// `simulateProcessingDelay: false` (see `TestScheduler`), as with RxTest.
    ///
    /// The sequence and the subscription are released before this returns.
    public func start<Element>(
        created: TestTime = 100,
        subscribed: TestTime = 200,
        disposed: TestTime = 1000,
        create: @escaping () -> Observable<Element>
    ) -> TestableObserver<Element> {
        let observer = createObserver(Element.self)
        let run = LockedState<(source: Observable<Element>?, subscription: Disposable?)>.make((nil, nil))
        scheduleAt(created) {
            let source = create()
            run.withLock { $0.source = source }
        }
        scheduleAt(subscribed) {
            guard let source = run.withLock({ $0.source }) else { return }
            let subscription = source.subscribe(observer)
            run.withLock { $0.subscription = subscription }
        }
        scheduleAt(disposed) {
            let (source, subscription) = run.withLock { run in
                defer { run = (nil, nil) }
                return run
            }
            subscription?.dispose()
            _ = source
        }
        start()
        return observer
    }

    /// `start(created: 100, subscribed: 200, disposed: disposed, create:)`.
    public func start<Element>(
        disposed: TestTime,
        create: @escaping () -> Observable<Element>
    ) -> TestableObserver<Element> {
        start(created: 100, subscribed: 200, disposed: disposed, create: create)
    }

    /// `start(created: 100, subscribed: 200, disposed: 1000, create:)`.
    public func start<Element>(_ create: @escaping () -> Observable<Element>) -> TestableObserver<Element> {
        start(created: 100, subscribed: 200, disposed: 1000, create: create)
    }
}
