extension ObservableType {
    /// Fails with `RxError.timeout` if the source lets `dueTime` pass without an event: before the
    /// first one, or between two elements.
    ///
    /// - Parameters:
    ///   - dueTime: The longest silence allowed (fractional seconds are kept).
    ///   - scheduler: Where the timer runs. Required: nothing here defaults to the main scheduler.
    /// - Returns: The source's events unchanged until it times out; on time-out the source is
    ///   disposed and `RxError.timeout` is sent.
    /// - Note: Elements arrive on the source's thread; the timeout error on `scheduler`.
    ///   Thread-safe.
    public func timeout(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        TimeoutObservable(source: asObservable(), dueTime: dueTime, other: nil, scheduler: scheduler)
    }

    /// Switches to `other` if the source lets `dueTime` pass without an event: before the first one,
    /// or between two elements.
    ///
    /// - Parameters:
    ///   - dueTime: The longest silence allowed (fractional seconds are kept).
    ///   - other: The sequence to continue with after a time-out; subscribed then, not before.
    ///   - scheduler: Where the timer runs. Required.
    /// - Returns: The source's events until it times out, then `other`'s; the source is disposed at
    ///   the switch.
    /// - Note: Elements arrive on the source's thread, then on `other`'s (subscribed on
    ///   `scheduler`). Thread-safe.
    public func timeout<Other: ObservableConvertibleType>(
        _ dueTime: RxTimeInterval,
        other: Other,
        scheduler: any SchedulerType
    ) -> Observable<Element> where Other.Element == Element {
        TimeoutObservable(
            source: asObservable(), dueTime: dueTime, other: other.asObservable(), scheduler: scheduler
        )
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class TimeoutObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let other: Observable<Element>?
    private let scheduler: any SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, other: Observable<Element>?, scheduler: any SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.other = other
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = TimeoutSink(dueTime: dueTime, other: other, scheduler: scheduler, downstream: observer)
        sink.run(source)
        return sink
    }
}

/// Forwards the source while a timer, restarted by every element, has not fired; the first of
/// "terminal event" and "timer fires" wins, under the lock.
///
/// An element's timer is started only after the element was forwarded, and a timer acts only if
/// no element came after it was started (its `id` is still current), so the timer never delivers
/// concurrently with an element.
// @unchecked Sendable: `id`/`switched` live in one LockedState; the disposables are thread-safe.
final class TimeoutSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct State {
        var id = 0
        var switched = false
    }

    private let dueTime: RxTimeInterval
    private let other: Observable<Element>?
    private let scheduler: any SchedulerType
    private let state = LockedState<State>.make(State())
    private let timer = SerialDisposable()
    /// The source's subscription, replaced by `other`'s at a time-out.
    private let subscription = SerialDisposable()

    init(
        dueTime: RxTimeInterval,
        other: Observable<Element>?,
        scheduler: any SchedulerType,
        downstream: ObserverNode<Element>
    ) {
        self.dueTime = dueTime
        self.other = other
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        // The source may be replaced by `other` (timer on another thread) before its own
        // subscription returns: the single-assignment slot then disposes it on arrival.
        let original = SingleAssignmentDisposable()
        subscription.disposable = original
        startTimer(id: 0)
        original.setDisposable(source.subscribe(self))
    }

    private func startTimer(id: Int) {
        timer.disposable = scheduler.scheduleRelative(id, dueTime: dueTime) { [self] id in
            timerFired(id: id)
            return Disposables.create()
        }
    }

    private func timerFired(id: Int) {
        let won = state.withLock { state -> Bool in
            guard !state.switched, state.id == id else { return false }
            state.switched = true
            return true
        }
        guard won, !isDisposed else { return }
        if let other {
            subscription.disposable = other.subscribe(TimeoutOtherObserver(sink: self))
        } else {
            forwardError(RxError.timeout)
        }
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        let id = state.withLock { state -> Int? in
            guard !state.switched else { return nil }
            state.id += 1
            return state.id
        }
        guard let id else { return }
        forwardNext(element)
        startTimer(id: id)
    }

    override func onError(_ error: Error) {
        if claimSourceTerminal() { forwardError(error) }
    }

    override func onCompleted() {
        if claimSourceTerminal() { forwardCompleted() }
    }

    private func claimSourceTerminal() -> Bool {
        state.withLock { state -> Bool in
            guard !state.switched else { return false }
            state.switched = true
            return true
        }
    }

    override func didDispose() {
        timer.dispose()
        subscription.dispose()
        super.didDispose()
    }
}

/// Forwards `other`'s events to the timed-out sink's downstream.
// @unchecked Sendable: immutable; `other`'s events arrive serialized.
final class TimeoutOtherObserver<Element>: ObserverNode<Element>, @unchecked Sendable {
    private let sink: TimeoutSink<Element>

    init(sink: TimeoutSink<Element>) {
        self.sink = sink
    }

    /// `other` may emit synchronously (`from`): it must see when nobody listens behind the sink.
    override var isDetached: Bool { sink.isDetached }

    override func onNext(_ element: Element) { sink.forwardNext(element) }
    override func onError(_ error: Error) { sink.forwardError(error) }
    override func onCompleted() { sink.forwardCompleted() }
}
