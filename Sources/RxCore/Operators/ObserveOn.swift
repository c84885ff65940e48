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

/// Queues events; the event that finds nobody delivering takes the drain loop's right and schedules
/// one drain on the scheduler, which delivers until the queue is empty.
// @unchecked Sendable: the queue and the pending drain live in one LockedState.
final class ObserveOnSink<Element>: DrainingSink<Element, Element>, @unchecked Sendable {
    private struct State {
        var queue = FIFOBuffer<Event<Element>>()
        /// The scheduled drain, to cancel on dispose.
        var scheduledDrain: Disposable?
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
        let queued = state.withLock { state -> Bool in
            guard !isDisposed else { return false }
            state.queue.append(event)
            return true
        }
        guard queued, drainLoop.signal() else { return }
        let drain = scheduler.schedule(self) { sink in
            sink.drain(missed: 1)
            return Disposables.create()
        }
        // Upstream events are serialized and only they signal, so no other drain is scheduled
        // before this one is stored.
        let (cancel, finished) = state.withLock { state -> (Disposable?, Disposable?) in
            if isDisposed { return (drain, nil) }
            defer { state.scheduledDrain = drain }
            return (nil, state.scheduledDrain)
        }
        _ = finished  // a finished drain; released outside the lock
        cancel?.dispose()
    }

    override func drainOne() -> DrainStep {
        deliver(state.withLock { $0.queue.popFirst() })
    }

    override func didDispose() {
        let (drain, dropped) = state.withLock { state -> (Disposable?, FIFOBuffer<Event<Element>>) in
            defer { state.scheduledDrain = nil }
            return (state.scheduledDrain, state.queue.takeAll())
        }
        _ = dropped
        drain?.dispose()
        super.didDispose()
    }
}
