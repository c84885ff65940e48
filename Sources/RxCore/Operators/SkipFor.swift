extension ObservableType {
    /// Drops the elements the source emits during `duration` from subscription, and forwards the
    /// later ones.
    ///
    /// The timer starts before the source is subscribed. The source's error or completion passes
    /// through at any time, before the timer has fired too, and cancels the timer.
    ///
    /// - Parameters:
    ///   - duration: How long to drop elements (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler.
    /// - Returns: The source without the elements of its first `duration`; disposing it disposes the
    ///   source and the timer.
    /// - Note: Events arrive on the source's thread; the timer only opens the gate and delivers
    ///   nothing itself. Thread-safe.
    public func skip(for duration: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        SkipForObservable(source: asObservable(), duration: duration, scheduler: scheduler)
    }

    /// RxSwift's spelling of `skip(for:scheduler:)`: drops the elements the source emits during
    /// `duration` from subscription, and forwards the later ones.
    ///
    /// - Parameters:
    ///   - duration: How long to drop elements (fractional seconds are kept).
    ///   - scheduler: Where the timer runs.
    /// - Returns: The same sequence as `skip(for: duration, scheduler: scheduler)`.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func skip(_ duration: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        skip(for: duration, scheduler: scheduler)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class SkipForObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let duration: RxTimeInterval
    private let scheduler: any SchedulerType

    init(source: Observable<Element>, duration: RxTimeInterval, scheduler: any SchedulerType) {
        self.source = source
        self.duration = duration
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = SkipForSink(downstream: observer)
        let timer = scheduler.scheduleRelative(sink, dueTime: duration) { sink in
            sink.open()
            return Disposables.create()
        }
        let subscription = source.subscribe(sink)
        // Set last: if the source ended during `subscribe`, this disposes the timer at once.
        sink.setUpstream(SubscriptionGroup(members: [classDisposable(timer), subscription]))
        return sink
    }
}

/// Drops elements until its timer has fired, then forwards everything.
// @unchecked Sendable: the gate lives in `state` (a LockedState); the rest is the atomic lifecycle.
final class SkipForSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct State {
        /// Whether the timer has fired.
        var isOpen = false
    }

    private let state = LockedState<State>.make(State())

    /// The timer fired: elements from now on are forwarded.
    func open() {
        state.withLock { $0.isOpen = true }
    }

    override func onNext(_ element: Element) {
        if state.withLock({ $0.isOpen }) {
            forwardNext(element)
        }
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
