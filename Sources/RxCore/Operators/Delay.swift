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

/// Queues each event with its own timer; a fired timer marks its event due and signals the drain
/// loop, whose owner delivers the due prefix of the queue, in arrival order.
// @unchecked Sendable: the queue, the timers and the pending error live in one LockedState.
final class DelaySink<Element>: DrainingSink<Element, Element>, @unchecked Sendable {
    private struct Entry {
        let event: Event<Element>
        var isDue = false
    }

    private struct State {
        /// Waiting events; the front one has sequence number `firstSequence`.
        var entries = FIFOBuffer<Entry>()
        var firstSequence = 0
        var nextSequence = 0
        var timers: [Int: Disposable] = [:]
        /// An error goes out before anything still waiting (which it drops).
        var error: Error?

        mutating func markDue(_ sequence: Int) {
            let offset = sequence - firstSequence
            if offset >= 0, offset < entries.count {
                entries[offset: offset].isDue = true
            }
        }

        func isDue(_ sequence: Int) -> Bool {
            let offset = sequence - firstSequence
            return offset >= 0 && offset < entries.count && entries[offset: offset].isDue
        }

        mutating func nextDue() -> Event<Element>? {
            if let pending = error {
                error = nil
                return .error(pending)
            }
            guard !entries.isEmpty, entries.peekFirst().isDue else { return nil }
            firstSequence += 1
            return entries.removeFirst().event
        }

        /// Empties the queue and the timers; returns them, to be released outside the lock.
        mutating func removeAll() -> (FIFOBuffer<Entry>, [Disposable]) {
            defer {
                firstSequence = nextSequence
                timers = [:]
            }
            return (entries.takeAll(), Array(timers.values))
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
        let dropped = state.withLock { state -> (FIFOBuffer<Entry>, [Disposable]) in
            state.error = error
            return state.removeAll()
        }
        for timer in dropped.1 {
            timer.dispose()
        }
        signal()
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
            guard !isDisposed, sequence >= state.firstSequence else { return timer }
            if state.isDue(sequence) { return nil }
            state.timers[sequence] = timer
            return nil
        }
        stale?.dispose()
    }

    private func timerFired(_ sequence: Int) {
        let finished = state.withLock { state -> Disposable? in
            state.markDue(sequence)
            return state.timers.removeValue(forKey: sequence)
        }
        // The timer that is running now: only the reference is dropped (outside the lock).
        _ = finished
        signal()
    }

    override func drainOne() -> DrainStep {
        deliver(state.withLock { $0.nextDue() })
    }

    override func didDispose() {
        let dropped = state.withLock { state -> (FIFOBuffer<Entry>, [Disposable]) in
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
