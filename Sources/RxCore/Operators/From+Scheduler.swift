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
/// Only one action is pending at a time: each hands its iterator on to the next action after it has
/// delivered its element (`ScheduledActionChain`, so an immediate scheduler runs the whole sequence
/// in constant stack depth).
// @unchecked Sendable: the pending action and iterator live in the chain's LockedState; the rest is
// immutable or the atomic lifecycle.
final class ScheduledSequenceSink<S: Sequence & SendableMetatype>: Sink<S.Element, S.Element>, @unchecked Sendable {
    private let scheduler: any ImmediateSchedulerType
    private let actions = ScheduledActionChain<S.Iterator>()

    init(scheduler: any ImmediateSchedulerType, downstream: ObserverNode<S.Element>) {
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    /// Schedules the action that sends `iterator`'s next element (or the completion).
    func schedule(_ iterator: S.Iterator) {
        actions.request(iterator, on: scheduler) { [self] iterator in
            step(iterator)
        }
    }

    /// One action: sends the next element and schedules the following action, or completes.
    private func step(_ iterator: S.Iterator) {
        // `isDetached`, not only our own state: on the current-thread scheduler the whole loop runs
        // inside `subscribe`, before a downstream `take` can dispose us, so we stop when it stops.
        guard !isDetached else { return }
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
        actions.cancel()
        super.didDispose()
    }
}
