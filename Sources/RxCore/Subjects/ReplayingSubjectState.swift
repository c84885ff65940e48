/// The state of a subject that replays to new subscribers (`BehaviorSubject`, `ReplaySubject`).
///
/// A new observer first catches up: it receives the replay on the subscribing thread, after the
/// lock, while events sent meanwhile queue for it; it joins the live observers once its queue is
/// empty. Delivery to one observer is thus never concurrent and always in order, and no observer is
/// ever called under the lock.
///
/// The struct is non-generic so that `onNext` needs no generic metadata lookup (each costs tens of
/// nanoseconds in unspecialized code); its generic half (the current value or replay buffer, the
/// queues of catching-up observers) is the `store` object, which is only ever reached through this
/// state, under the subject's lock.
struct ReplayingSubjectState {
    var observers = SubjectRegistry()
    var lifecycle = SubjectLifecycle.active
    /// How many observers are catching up; their queues are in `store`.
    var catchingUpCount = 0
    /// A `ReplayingStore<Element>` of the subject's element type.
    let store: ReplayingStoreBase

    /// Whether any observer is registered (live or catching up).
    var hasObservers: Bool {
        observers.count > 0 || catchingUpCount > 0
    }

    var isDisposed: Bool {
        if case .disposed = lifecycle { return true }
        return false
    }
}

/// The non-generic face of a `ReplayingStore`.
class ReplayingStoreBase {
    init() {}
}

/// The generic half of a `ReplayingSubjectState`: what a subject replays and the queues of the
/// observers catching up. Reached only through the state, under the subject's lock.
class ReplayingStore<Element>: ReplayingStoreBase {
    private final var catchingUp: [Int: (SubjectSubscription<Element>, ContiguousArray<Event<Element>>)] = [:]

    /// The events a new subscriber receives first, oldest first.
    func replay() -> ContiguousArray<Event<Element>> {
        []
    }

    /// The events a subscriber receives first once the subject has terminated, before the terminal
    /// event itself.
    func replayAfterTermination() -> ContiguousArray<Event<Element>> {
        replay()
    }

    /// Records an element sent to the subject.
    func record(_ element: Element) {}

    /// Drops what would be replayed; returns it, to be released after the lock.
    func removeAll() -> Any {
        ()
    }

    /// Registers a new observer, to catch up before it joins the live ones.
    final func beginCatchingUp(_ subscription: SubjectSubscription<Element>, in state: inout ReplayingSubjectState) {
        catchingUp[subscription.key] = (subscription, [])
        state.catchingUpCount = catchingUp.count
    }

    /// Queues `event` for every observer still catching up (callers check `catchingUpCount` first).
    final func enqueueForCatchingUp(_ event: Event<Element>) {
        var index = catchingUp.values.startIndex
        while index != catchingUp.values.endIndex {
            catchingUp.values[index].1.append(event)
            catchingUp.values.formIndex(after: &index)
        }
    }

    /// Queues `.next(element)`; kept out of line so that `onNext` does not even look up the
    /// metadata of `Event<Element>` when no observer is catching up.
    @inline(never)
    final func enqueueNextForCatchingUp(_ element: Element) {
        enqueueForCatchingUp(.next(element))
    }

    /// The events queued for a catching-up observer (it stays catching up), or `nil` once it has
    /// nothing left: it then joined the live observers (or was removed, or got its terminal event).
    final func takeCatchUpEvents(
        forKey key: Int,
        in state: inout ReplayingSubjectState
    ) -> ContiguousArray<Event<Element>>? {
        defer { state.catchingUpCount = catchingUp.count }
        guard let (subscription, events) = catchingUp[key] else { return nil }
        if events.isEmpty {
            catchingUp[key] = nil
            state.observers.insert(subscription)
            return nil
        }
        if events.last?.isStopEvent == true {
            catchingUp[key] = nil
        } else {
            catchingUp[key] = (subscription, [])
        }
        return events
    }

    /// Removes the observer for `key`, live or catching up; returns it, to be released after the lock.
    final func remove(forKey key: Int, in state: inout ReplayingSubjectState) -> SubjectSubscriptionBase? {
        if let removed = catchingUp.removeValue(forKey: key) {
            state.catchingUpCount = catchingUp.count
            return removed.0
        }
        return state.observers.remove(forKey: key)
    }

    /// Removes every observer and the replay; returns what to release after the lock.
    final func disposeAll(in state: inout ReplayingSubjectState) -> Any {
        let dropped: Any = (state.observers.removeAll(), catchingUp, removeAll())
        catchingUp = [:]
        state.catchingUpCount = 0
        return dropped
    }
}

extension LockedState where State == ReplayingSubjectState {
    /// Delivers `replay` to a catching-up observer, then whatever was queued for it meanwhile,
    /// until it joins the live observers. Runs on the subscribing thread, never under the lock.
    func catchUp<Element>(
        _ subscription: SubjectSubscription<Element>,
        replaying replay: ContiguousArray<Event<Element>>
    ) {
        var batch = replay
        while true {
            for event in batch {
                subscription.deliver(event)
            }
            let next = withLock { state in
                unsafeDowncast(state.store, to: ReplayingStore<Element>.self)
                    .takeCatchUpEvents(forKey: subscription.key, in: &state)
            }
            guard let next else { return }
            batch = next
        }
    }

    /// Subscribes `observer` to a replaying subject; see `BehaviorSubject` and `ReplaySubject`.
    func subscribe<Element>(_ observer: ObserverNode<Element>, owner: SubjectObserverRemoving) -> ClassDisposable {
        let outcome = withLock { state -> CatchUpOutcome<Element> in
            let store = unsafeDowncast(state.store, to: ReplayingStore<Element>.self)
            switch state.lifecycle {
            case .disposed:
                return .rejected([.error(RxError.disposed)])
            case .terminated(let termination):
                var events = store.replayAfterTermination()
                events.append(termination.event())
                return .rejected(events)
            case .active:
                let subscription = SubjectSubscription(key: state.observers.makeKey(), observer: observer, owner: owner)
                store.beginCatchingUp(subscription, in: &state)
                return .catchingUp(subscription, store.replay())
            }
        }
        switch outcome {
        case .catchingUp(let subscription, let replay):
            catchUp(subscription, replaying: replay)
            return subscription
        case .rejected(let events):
            for event in events {
                observer.on(event)
            }
            return NopDisposable.shared
        }
    }

    /// Records and sends `element`; see `BehaviorSubject.onNext` and `ReplaySubject.onNext`.
    @inline(__always)
    func onNext<Element>(_ element: Element) {
        let observers = withLock { state -> SubjectSnapshot in
            guard state.lifecycle.isActive else { return [] }
            let store = unsafeDowncast(state.store, to: ReplayingStore<Element>.self)
            store.record(element)
            if state.catchingUpCount > 0 {
                store.enqueueNextForCatchingUp(element)
            }
            return state.observers.snapshot()
        }
        observers.deliverNext(element)
    }

    /// Terminates the subject; see `BehaviorSubject.onError` and `ReplaySubject.onError`.
    func terminate<Element>(_ termination: Termination, of _: Element.Type) {
        let observers = withLock { state -> SubjectSnapshot in
            guard state.lifecycle.isActive else { return [] }
            state.lifecycle = .terminated(termination)
            if state.catchingUpCount > 0 {
                unsafeDowncast(state.store, to: ReplayingStore<Element>.self)
                    .enqueueForCatchingUp(termination.event())
            }
            return state.observers.removeAll()
        }
        observers.deliverTerminal(termination, of: Element.self)
    }

    /// Disposes the subject: drops every observer and the replay.
    func dispose<Element>(of _: Element.Type) {
        let dropped = withLock { state -> Any in
            state.lifecycle = .disposed
            return unsafeDowncast(state.store, to: ReplayingStore<Element>.self).disposeAll(in: &state)
        }
        // Released here, after the lock: their deinit may run user code.
        _ = dropped
    }

    /// Forgets the observer for `key`.
    func removeObserver<Element>(forKey key: Int, of _: Element.Type) {
        let removed = withLock { state in
            unsafeDowncast(state.store, to: ReplayingStore<Element>.self).remove(forKey: key, in: &state)
        }
        // Released here, after the lock: its deinit may run user code.
        _ = removed
    }
}

/// What `subscribe` decided under the lock of a replaying subject.
enum CatchUpOutcome<Element> {
    /// Registered; the events to replay before it joins the live observers.
    case catchingUp(SubjectSubscription<Element>, ContiguousArray<Event<Element>>)
    /// Not registered (terminated or disposed subject): the events to send, ending with a terminal one.
    case rejected(ContiguousArray<Event<Element>>)
}
