extension ObservableType {
    /// Delivers the source's events on `scheduler`, one at a time and in order.
    ///
    /// - Parameter scheduler: Where events are delivered. Even on a concurrent scheduler
    ///   (`ConcurrentDispatchQueueScheduler`) delivery stays serialized: one scheduled drain at a
    ///   time sends every queued event in order.
    /// - Returns: The same events, moved to `scheduler`. Disposing drops the events not yet
    ///   delivered and cancels the pending drain.
    /// - Note: Events arrive on `scheduler` and never overlap. Thread-safe. Events queue up without
    ///   bound while the scheduler is busy.
    public func observe(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        ObserveOnObservable(source: asObservable(), scheduler: scheduler)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class ObserveOnObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let scheduler: any ImmediateSchedulerType

    init(source: Observable<Element>, scheduler: any ImmediateSchedulerType) {
        self.source = source
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = ObserveOnSink(scheduler: scheduler, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

/// Queues events; the event that finds nobody delivering schedules one drain on the scheduler, which
/// delivers until the queue is empty.
// @unchecked Sendable: the queue and the pending drain live in one LockedState.
final class ObserveOnSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct State {
        var outbox = DeliveryOutbox<Element>()
        var drain: Disposable?
        var isDisposed = false
    }

    private let scheduler: any ImmediateSchedulerType
    private let state = LockedState<State>.make(State())

    init(scheduler: any ImmediateSchedulerType, downstream: ObserverNode<Element>) {
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        enqueue(.next(element))
    }

    override func onError(_ error: Error) {
        guard !isStoppedOrDisposed else { return }
        enqueue(.error(error))
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        enqueue(.completed)
    }

    private func enqueue(_ event: Event<Element>) {
        let startDrain = state.withLock { state in
            !state.isDisposed && state.outbox.enqueue(event)
        }
        guard startDrain else { return }
        let drain = scheduler.schedule(self) { sink in
            sink.deliverQueuedEvents()
            return Disposables.create()
        }
        // Upstream events are serialized, so no other drain is scheduled before this one is stored.
        let (cancel, previous) = state.withLock { state -> (Disposable?, Disposable?) in
            if state.isDisposed { return (drain, nil) }
            defer { state.drain = drain }
            return (nil, state.drain)
        }
        _ = previous  // a finished drain; released outside the lock
        cancel?.dispose()
    }

    private func deliverQueuedEvents() {
        while let event = state.withLock({ $0.outbox.next() }) {
            forward(event)
        }
    }

    override func didDispose() {
        let (drain, dropped) = state.withLock { state -> (Disposable?, [Event<Element>]) in
            state.isDisposed = true
            defer { state.drain = nil }
            return (state.drain, state.outbox.removeAll())
        }
        _ = dropped
        drain?.dispose()
        super.didDispose()
    }
}
