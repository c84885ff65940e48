import Foundation

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
    ///   element is being delivered at that moment). Thread-safe. One timer at a time, as in
    ///   RxSwift: the next event's timer is scheduled once the previous event is delivered, for what
    ///   is left of its delay; cancelled on dispose.
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

/// Queues events with their arrival time and keeps one timer at a time, as RxSwift does: the timer
/// for the front event fires `dueTime` after it arrived; the event is delivered, then the timer for
/// the next one is scheduled for what is left of its delay (zero if it is already due, which a
/// `TestScheduler` runs one tick later, as RxTest does).
// @unchecked Sendable: the queue, the timer and the pending error live in one LockedState.
final class DelaySink<Element>: DrainingSink<Element, Element>, @unchecked Sendable {
    private struct Entry {
        let arrival: Date
        let event: Event<Element>
    }

    private struct State {
        /// Waiting events, oldest first.
        var entries = FIFOBuffer<Entry>()
        /// Whether the front entry's timer has fired.
        var frontIsDue = false
        /// Whether a timer is pending or the front entry is being delivered.
        var active = false
        /// The pending timer, to cancel on dispose; `generation` tells a late store from a fresh one.
        var timer: Disposable?
        var generation = 0
        /// An error goes out before anything still waiting (which it drops).
        var error: Error?

        /// Empties the queue and the timer; returns them, to be released outside the lock.
        mutating func removeAll() -> (FIFOBuffer<Entry>, Disposable?) {
            defer {
                timer = nil
                frontIsDue = false
                active = false
                generation += 1
            }
            return (entries.takeAll(), timer)
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
        enqueue(.next(element))
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        sourceSubscription.dispose()
        enqueue(.completed)
    }

    override func onError(_ error: Error) {
        guard !isStoppedOrDisposed else { return }
        sourceSubscription.dispose()
        let dropped = state.withLock { state -> (FIFOBuffer<Entry>, Disposable?) in
            state.error = error
            return state.removeAll()
        }
        dropped.1?.dispose()
        signal()
    }

    private func enqueue(_ event: Event<Element>) {
        let arrival = scheduler.now
        let startsTimer = state.withLock { state -> Bool in
            guard !isDisposed else { return false }
            state.entries.append(Entry(arrival: arrival, event: event))
            if state.active { return false }
            state.active = true
            return true
        }
        if startsTimer {
            scheduleTimer(after: dueTime)
        }
    }

    private func scheduleTimer(after interval: RxTimeInterval) {
        let generation = state.withLock { state -> Int in
            state.generation += 1
            return state.generation
        }
        let timer = scheduler.scheduleRelative(generation, dueTime: interval) { [self] generation in
            timerFired(generation)
            return Disposables.create()
        }
        let stale = state.withLock { state -> Disposable? in
            guard !isDisposed else { return timer }
            // A newer timer (or a reset by an error) came first: this one has fired already.
            guard state.generation == generation else { return nil }
            defer { state.timer = timer }
            return nil
        }
        stale?.dispose()
    }

    private func timerFired(_ generation: Int) {
        let finished = state.withLock { state -> Disposable? in
            guard state.generation == generation, !state.entries.isEmpty else { return nil }
            state.frontIsDue = true
            defer { state.timer = nil }
            return state.timer
        }
        // The timer that is running now: only the reference is dropped (outside the lock).
        _ = finished
        signal()
    }

    override func drainOne() -> DrainStep {
        let now = scheduler.now
        let (event, remaining) = state.withLock { state -> (Event<Element>?, RxTimeInterval?) in
            if let pending = state.error {
                state.error = nil
                return (.error(pending), nil)
            }
            guard state.frontIsDue, !state.entries.isEmpty else { return (nil, nil) }
            state.frontIsDue = false
            let event = state.entries.removeFirst().event
            guard !state.entries.isEmpty else {
                state.active = false
                return (event, nil)
            }
            let elapsed = now.timeIntervalSince(state.entries.peekFirst().arrival)
            return (event, .seconds(max(0, dueTime.timeInterval - elapsed)))
        }
        let step = deliver(event)
        if step == .delivered, let remaining {
            scheduleTimer(after: remaining)
        }
        return step
    }

    override func didDispose() {
        let dropped = state.withLock { state -> (FIFOBuffer<Entry>, Disposable?) in
            state.error = nil
            return state.removeAll()
        }
        dropped.1?.dispose()
        sourceSubscription.dispose()
        super.didDispose()
    }
}
