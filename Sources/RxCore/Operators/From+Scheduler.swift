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
/// Only one action is pending at a time: each schedules the next after it has delivered its element,
/// and the iterator travels from one to the next as the action's state, so no lock guards it. An
/// action that the scheduler runs before `schedule` has returned (an immediate scheduler, or another
/// thread that is quick) does not schedule the next itself: it leaves its iterator in the state, and
/// the thread still in `schedule` picks it up and loops. So an immediate scheduler runs the whole
/// sequence in constant stack depth.
// @unchecked Sendable: mutable state lives in `state`; the rest is immutable or the atomic lifecycle.
final class ScheduledSequenceSink<S: Sequence & SendableMetatype>: Sink<S.Element, S.Element>, @unchecked Sendable {
    private struct State {
        /// The pending action, once `schedule` returned it.
        var scheduled: Disposable?
        /// Whether a thread is inside `scheduler.schedule`.
        var isScheduling = false
        /// The iterator an action left for the thread inside `scheduler.schedule` to go on with.
        var handedBack: S.Iterator?
    }

    private let scheduler: any ImmediateSchedulerType
    private let state = LockedState<State>.make(State())

    init(scheduler: any ImmediateSchedulerType, downstream: ObserverNode<S.Element>) {
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    /// Schedules the action that sends `iterator`'s next element (or the completion), and the later
    /// ones an action hands back while this call is inside `scheduler.schedule`.
    func schedule(_ iterator: S.Iterator) {
        var iterator = iterator
        while true {
            let proceed = state.withLock { state -> Bool in
                guard !isDisposed else { return false }
                state.isScheduling = true
                return true
            }
            guard proceed else { return }
            let scheduled = scheduler.schedule(iterator) { [self] iterator in
                step(iterator)
                return Disposables.create()
            }
            var replaced: Disposable?
            let (next, disposeNow) = state.withLock { state -> (S.Iterator?, Bool) in
                state.isScheduling = false
                if isDisposed { return (nil, true) }
                if let handedBack = state.handedBack {
                    // The action already ran and wants the next one.
                    state.handedBack = nil
                    return (handedBack, false)
                }
                replaced = state.scheduled
                state.scheduled = scheduled
                return (nil, false)
            }
            // The finished action's handle is released here, after the lock: a user scheduler's
            // disposable may run code in its deinit.
            _ = replaced
            if disposeNow {
                scheduled.dispose()
            }
            guard let next else { return }
            iterator = next
        }
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
        let scheduleHere = state.withLock { state -> Bool in
            if isDisposed { return false }
            if state.isScheduling {
                state.handedBack = iterator
                return false
            }
            return true
        }
        if scheduleHere {
            schedule(iterator)
        }
    }

    override func didDispose() {
        let (scheduled, handedBack) = state.withLock { state -> (Disposable?, S.Iterator?) in
            defer {
                state.scheduled = nil
                state.handedBack = nil
            }
            return (state.scheduled, state.handedBack)
        }
        scheduled?.dispose()
        // Released here, after the lock: the iterator's deinit may run user code.
        _ = handedBack
        super.didDispose()
    }
}
