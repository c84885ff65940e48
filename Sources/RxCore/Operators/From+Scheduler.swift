extension Observable {
    /// A sequence of the elements of `sequence`, each sent by its own action on `scheduler`, then
    /// completion, sent by one more action.
    ///
    /// - Parameters:
    ///   - sequence: The elements to emit; iterated once per subscription, one element per action,
    ///     so an infinite `Sequence` is fine as long as something disposes the subscription.
    ///   - scheduler: Where each element and the completion are sent.
    /// - Returns: A cold sequence; disposing it cancels the pending action, and nothing more is sent.
    /// - Note: Events arrive on `scheduler`, one action at a time, never concurrently. A scheduler
    ///   that runs actions at once (`ImmediateScheduler`) runs them in a loop, in constant stack
    ///   depth. Thread-safe.
    public static func from<S: Sequence & SendableMetatype>(_ sequence: S, scheduler: any ImmediateSchedulerType) -> Observable<Element>
    where S.Element == Element {
        ScheduledSequenceObservable(sequence, scheduler: scheduler)
    }

    /// A sequence of the given elements, each sent by its own action on `scheduler`, then
    /// completion, sent by one more action.
    ///
    /// - Parameters:
    ///   - elements: The elements to emit.
    ///   - scheduler: Where each element and the completion are sent.
    /// - Returns: A cold sequence; disposing it cancels the pending action, and nothing more is sent.
    /// - Note: Events arrive on `scheduler`, never concurrently. Thread-safe.
    public static func of(_ elements: Element..., scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        ScheduledSequenceObservable(elements, scheduler: scheduler)
    }

    /// A sequence of one element, sent by an action on `scheduler`, then completion, sent by
    /// another.
    ///
    /// - Parameters:
    ///   - element: The element to emit.
    ///   - scheduler: Where the element and the completion are sent.
    /// - Returns: A cold sequence; disposing it cancels the pending action, and nothing more is sent.
    /// - Note: Events arrive on `scheduler`, never concurrently. Thread-safe.
    public static func just(_ element: Element, scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        ScheduledSequenceObservable(CollectionOfOne(element), scheduler: scheduler)
    }

    /// A sequence of `optional`'s value, if it has one, sent by an action on `scheduler`, then
    /// completion, sent by another.
    ///
    /// - Parameters:
    ///   - optional: The element to emit, or nil for a sequence that only completes.
    ///   - scheduler: Where the events are sent.
    /// - Returns: A cold sequence; disposing it cancels the pending action, and nothing more is sent.
    /// - Note: Events arrive on `scheduler`, never concurrently. Thread-safe.
    public static func from(optional: Element?, scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        ScheduledSequenceObservable(optional.map { [$0] } ?? [], scheduler: scheduler)
    }
}

// @unchecked Sendable: immutable after init; each subscription makes its own iterator.
final class ScheduledSequenceObservable<S: Sequence & SendableMetatype>: Observable<S.Element>, @unchecked Sendable {
    private let sequence: S
    private let scheduler: any ImmediateSchedulerType

    init(_ sequence: S, scheduler: any ImmediateSchedulerType) {
        self.sequence = sequence
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<S.Element>) -> ClassDisposable {
        let sink = ScheduledSequenceSink<S>(scheduler: scheduler, downstream: observer)
        sink.schedule(sequence.makeIterator())
        return sink
    }
}

/// Sends one element of an iterator per scheduled action, then completion in one more.
///
/// Only one action is pending at a time: each hands its iterator back after it has delivered its
/// element, and scheduling the next action runs on a `DrainLoop`. An action that the scheduler runs
/// before `scheduler.schedule` has returned (an immediate scheduler, or another thread that is
/// quick) finds the loop's right held by the thread still scheduling, which picks the iterator up on
/// its next step: an immediate scheduler runs the whole sequence in constant stack depth.
// @unchecked Sendable: mutable state lives in `state`; the rest is immutable, the atomic lifecycle
// or the loop's atomic counter.
final class ScheduledSequenceSink<S: Sequence & SendableMetatype>: Sink<S.Element, S.Element>, @unchecked Sendable {
    private struct State {
        /// The pending action's handle, once `schedule` returned it.
        var scheduled: Disposable?
        /// The iterator whose next action is to be scheduled.
        var next: S.Iterator?
    }

    private let scheduler: any ImmediateSchedulerType
    private let state = LockedState<State>.make(State())
    /// Who calls `scheduler.schedule`: one thread at a time, in a loop.
    private let loop = DrainLoop()

    init(scheduler: any ImmediateSchedulerType, downstream: ObserverNode<S.Element>) {
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    /// Schedules the action that sends `iterator`'s next element (or the completion).
    func schedule(_ iterator: S.Iterator) {
        let proceed = state.withLock { state -> Bool in
            guard !isDisposed else { return false }
            state.next = iterator
            return true
        }
        if proceed, loop.signal() {
            loop.run(missed: 1, scheduleNext)
        }
    }

    /// One step of the loop: schedules the action of the iterator handed in, if there is one.
    private func scheduleNext() -> DrainStep {
        var iterator: S.Iterator?
        let disposed = state.withLock { state -> Bool in
            if isDisposed { return true }
            swap(&iterator, &state.next)
            return false
        }
        if disposed { return .finished }
        guard let iterator else { return .idle }
        let scheduled = scheduler.schedule(iterator) { [self] iterator in
            step(iterator)
            return Disposables.create()
        }
        var replaced: Disposable?
        let disposeNow = state.withLock { state -> Bool in
            if isDisposed { return true }
            replaced = state.scheduled
            state.scheduled = scheduled
            return false
        }
        // The finished action's handle is released here, after the lock: a user scheduler's
        // disposable may run code in its deinit.
        _ = replaced
        if disposeNow {
            scheduled.dispose()
            return .finished
        }
        return .delivered
    }

    /// One action: sends the next element and schedules the following action, or completes.
    private func step(_ iterator: S.Iterator) {
        guard !isStoppedOrDisposed else { return }
        var iterator = iterator
        // User code (the sequence's iterator): called without the lock.
        guard let element = iterator.next() else {
            forwardCompleted()
            return
        }
        forwardNext(element)
        schedule(iterator)
    }

    override func didDispose() {
        let (scheduled, next) = state.withLock { state -> (Disposable?, S.Iterator?) in
            defer {
                state.scheduled = nil
                state.next = nil
            }
            return (state.scheduled, state.next)
        }
        scheduled?.dispose()
        // Released here, after the lock: the iterator's deinit may run user code.
        _ = next
        super.didDispose()
    }
}
