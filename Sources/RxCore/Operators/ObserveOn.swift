extension ObservableType {
    /// Delivers the source's events on `scheduler`, one at a time and in order.
    ///
    /// - Parameter scheduler: Where events are delivered, each by an action of its own, as in
    ///   RxSwift (other work on the scheduler can run between two events; on a `TestScheduler`
    ///   events that arrived together leave on successive ticks). Even on a concurrent scheduler
    ///   (`ConcurrentDispatchQueueScheduler`) delivery stays serialized: one action is pending at a
    ///   time, and each schedules the next.
    /// - Returns: The same events, moved to `scheduler`. Disposing drops the events not yet
    ///   delivered and cancels the pending action.
    /// - Note: Events arrive on `scheduler` and never overlap. Thread-safe. Events queue up without
    ///   bound while the scheduler is busy. A scheduler that runs actions at once
    ///   (`ImmediateScheduler`) runs them in a loop, in constant stack depth.
    public func observe(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        SinkObservable(source: asObservable()) { ObserveOnSink(scheduler: scheduler, downstream: $0) }
    }
}

/// Queues events and delivers each by an action of its own on the scheduler.
///
/// The drain loop's counter holds one signal per queued event: the event that finds it at zero
/// asks for an action; an action delivers one event and gives one signal back, asking for the next
/// action if more are queued (`ScheduledActionChain`: one pending at a time, constant stack depth on
/// an immediate scheduler).
// @unchecked Sendable: the queue lives in one LockedState, the pending action in the chain's; the
// drain loop's counter is atomic.
final class ObserveOnSink<Element>: DrainingSink<Element, Element>, @unchecked Sendable {
    private let scheduler: any ImmediateSchedulerType
    private let queue = LockedState<FIFOBuffer<Event<Element>>>.make(FIFOBuffer())
    private let actions = ScheduledActionChain<Void>()

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
        let queued = queue.withLock { queue -> Bool in
            guard !isDisposed else { return false }
            queue.append(event)
            return true
        }
        if queued, drainLoop.signal() {
            requestAction()
        }
    }

    /// Called by the owner of the delivery right: one more action is to be scheduled.
    private func requestAction() {
        actions.request((), on: scheduler) { [self] _ in
            deliverOne()
        }
    }

    /// One action: delivers the front event and, if more are queued, asks for the next action.
    private func deliverOne() {
        guard drainOne() == .delivered else {
            // The terminal event went out, or dispose emptied the queue: the right is kept for good.
            return
        }
        if drainLoop.release() != 0 {
            requestAction()
        }
    }

    override func drainOne() -> DrainStep {
        deliver(queue.withLock { $0.popFirst() })
    }

    override func didDispose() {
        actions.cancel()
        let dropped = queue.withLock { $0.takeAll() }
        _ = dropped
        super.didDispose()
    }
}
