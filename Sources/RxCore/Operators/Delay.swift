extension ObservableType {
    /// Shifts every element, and completion, later by `dueTime`; an error is passed on at once,
    /// dropping the elements still waiting (as RxSwift 6 does).
    ///
    /// - Parameters:
    ///   - dueTime: The shift (fractional seconds are kept; a positive shift is never rounded away).
    ///   - scheduler: Where the delayed events are sent from. Required: nothing here defaults to the
    ///     main scheduler.
    /// - Returns: The source's events, in order, each `dueTime` after it arrived. The source's
    ///   subscription is released as soon as the source terminates.
    /// - Note: Elements and completion arrive on `scheduler`, one at a time and in order even on a
    ///   concurrent scheduler; an error arrives on the source's thread (or on `scheduler` if an
    ///   element is being delivered at that moment). Thread-safe. Each event has its own timer,
    ///   cancelled on dispose.
    public func delay(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        DelayObservable(source: asObservable(), dueTime: dueTime, scheduler: scheduler)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class DelayObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let scheduler: any SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, scheduler: any SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = DelaySink(dueTime: dueTime, scheduler: scheduler, downstream: observer)
        sink.run(source)
        return sink
    }
}

/// Queues each event with its own timer; a fired timer marks its event due, and whoever finds the
/// head of the queue due (and nobody delivering) delivers the due prefix, in arrival order.
// @unchecked Sendable: the queue, the timers and the delivery flag live in one LockedState.
final class DelaySink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct Entry {
        let event: Event<Element>
        var isDue = false
    }

    private struct State {
        /// Waiting events; `entries[index]` has sequence number `firstSequence + index - head`.
        var entries: [Entry] = []
        var head = 0
        var firstSequence = 0
        var nextSequence = 0
        var timers: [Int: Disposable] = [:]
        var error: Error?
        var isDelivering = false
        var isDisposed = false

        mutating func markDue(_ sequence: Int) {
            let index = head + sequence - firstSequence
            if sequence >= firstSequence, index < entries.count {
                entries[index].isDue = true
            }
        }

        /// Whether the caller should deliver now (and is now the deliverer).
        mutating func claim() -> Bool {
            guard !isDelivering, !isDisposed else { return false }
            guard error != nil || (head < entries.count && entries[head].isDue) else { return false }
            isDelivering = true
            return true
        }

        mutating func nextDue() -> Event<Element>? {
            if let pending = error {
                error = nil
                return .error(pending)
            }
            guard !isDisposed, head < entries.count, entries[head].isDue else {
                isDelivering = false
                return nil
            }
            let event = entries[head].event
            head += 1
            firstSequence += 1
            if head == entries.count {
                entries.removeAll(keepingCapacity: entries.capacity <= 64)
                head = 0
            } else if head >= 64 && head * 2 >= entries.count {
                entries.removeFirst(head)
                head = 0
            }
            return event
        }

        /// Empties the queue and the timers; returns them, to be released outside the lock.
        mutating func removeAll() -> ([Entry], [Disposable]) {
            defer {
                firstSequence = nextSequence
                entries = []
                head = 0
                timers = [:]
            }
            return (entries, Array(timers.values))
        }
    }

    private let dueTime: RxTimeInterval
    private let scheduler: any SchedulerType
    private let state = LockedState<State>.make(State())
    /// Held here rather than as the upstream so that it is released when the source terminates.
    private let sourceSubscription = SingleAssignmentDisposable()

    init(dueTime: RxTimeInterval, scheduler: any SchedulerType, downstream: ObserverNode<Element>) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        sourceSubscription.setDisposable(source.subscribe(self))
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        schedule(.next(element))
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        sourceSubscription.dispose()
        schedule(.completed)
    }

    override func onError(_ error: Error) {
        guard !isStoppedOrDisposed else { return }
        sourceSubscription.dispose()
        let (deliverNow, dropped) = state.withLock { state -> (Bool, ([Entry], [Disposable])) in
            let dropped = state.removeAll()
            state.error = error
            return (state.claim(), dropped)
        }
        for timer in dropped.1 {
            timer.dispose()
        }
        if deliverNow {
            deliverDueEvents()
        }
    }

    private func schedule(_ event: Event<Element>) {
        let sequence = state.withLock { state -> Int in
            state.entries.append(Entry(event: event))
            defer { state.nextSequence += 1 }
            return state.nextSequence
        }
        let timer = scheduler.scheduleRelative(sequence, dueTime: dueTime) { [self] sequence in
            timerFired(sequence)
            return Disposables.create()
        }
        let stale = state.withLock { state -> Disposable? in
            // Already fired, or dropped by an error or dispose: nothing left to cancel.
            guard !state.isDisposed, sequence >= state.firstSequence else { return timer }
            let index = state.head + sequence - state.firstSequence
            if index < state.entries.count, state.entries[index].isDue { return nil }
            state.timers[sequence] = timer
            return nil
        }
        stale?.dispose()
    }

    private func timerFired(_ sequence: Int) {
        let (deliverNow, finished) = state.withLock { state -> (Bool, Disposable?) in
            state.markDue(sequence)
            let finished = state.timers.removeValue(forKey: sequence)
            return (state.claim(), finished)
        }
        // The timer that is running now: only the reference is dropped (outside the lock).
        _ = finished
        if deliverNow {
            deliverDueEvents()
        }
    }

    private func deliverDueEvents() {
        while let event = state.withLock({ $0.nextDue() }) {
            forward(event)
        }
    }

    override func didDispose() {
        let dropped = state.withLock { state -> ([Entry], [Disposable]) in
            state.isDisposed = true
            state.error = nil
            return state.removeAll()
        }
        for timer in dropped.1 {
            timer.dispose()
        }
        sourceSubscription.dispose()
        super.didDispose()
    }
}
