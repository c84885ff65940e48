extension ObservableType {
    /// Elements of this sequence until `other` emits an element; then completion.
    ///
    /// `other` is subscribed first; if it emits at once the source is never subscribed. An error from
    /// `other` terminates the sequence with that error; `other` completing without an element
    /// changes nothing (the source goes on), as in RxSwift.
    ///
    /// - Parameter other: The sequence whose first element ends this one.
    /// - Returns: A prefix of the source; on termination or dispose both subscriptions are disposed.
    /// - Note: Events arrive on the source's thread, or on `other`'s thread for the completion it
    ///   causes. If `other` fires while an element is being delivered on another thread, the
    ///   completion is delivered right after that element, on the source's thread: deliveries never
    ///   overlap. Thread-safe.
    public func take<Other: ObservableType>(until other: Other) -> Observable<Element> {
        TakeUntilObservable(source: asObservable(), other: other.asObservable())
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class TakeUntilObservable<Element, Other>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let other: Observable<Other>

    init(source: Observable<Element>, other: Observable<Other>) {
        self.source = source
        self.other = other
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = TakeUntilSink<Element>(downstream: observer)
        let trigger = TakeUntilTrigger<Other, Element>(parent: sink)
        sink.attach(trigger)
        trigger.setUpstream(other.subscribe(trigger))
        if !sink.isStoppedOrDisposed {
            sink.setUpstream(source.subscribe(sink))
        }
        return sink
    }
}

/// Forwards the source and serializes it with the trigger, which may fire on another thread.
// @unchecked Sendable: mutable state is in `state` (a LockedState); the rest is the atomic lifecycle.
final class TakeUntilSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    enum Phase {
        /// No delivery in progress.
        case idle
        /// A source element is being delivered by the thread that set this.
        case emitting
        /// As `emitting`, and the trigger fired meanwhile: the emitting thread delivers this next.
        case emittingThenStop(Termination)
        /// A terminal event went out, or the sink was disposed.
        case stopped
    }

    struct State {
        var phase = Phase.idle
        var trigger: Disposable?
    }

    private enum Role {
        case owner, nested, drop
    }

    private let state = LockedState<State>.make(State())

    /// Keeps the trigger's subscription, to dispose it with the sink (at once if already disposed).
    func attach(_ trigger: Disposable) {
        let disposeNow = state.withLock { state -> Bool in
            if case .stopped = state.phase { return true }
            state.trigger = trigger
            return false
        }
        if disposeNow {
            trigger.dispose()
        }
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        let role = state.withLock { state -> Role in
            switch state.phase {
            case .idle:
                state.phase = .emitting
                return .owner
            case .emitting:
                // The source is serialized, so this is a reentrant call from our own delivery.
                return .nested
            case .emittingThenStop, .stopped:
                return .drop
            }
        }
        switch role {
        case .drop:
            return
        case .nested:
            forwardNext(element)
        case .owner:
            forwardNext(element)
            let pending = state.withLock { state -> Termination? in
                switch state.phase {
                case .emitting:
                    state.phase = .idle
                    return nil
                case .emittingThenStop(let terminal):
                    state.phase = .stopped
                    return terminal
                case .idle, .stopped:
                    return nil
                }
            }
            if let pending {
                forward(pending)
            }
        }
    }

    override func onError(_ error: Error) {
        if stopFromSource() {
            forwardError(error)
        }
    }

    override func onCompleted() {
        if stopFromSource() {
            forwardCompleted()
        }
    }

    /// The trigger fired (`.completed`) or failed: terminate now, or after the delivery in progress.
    func triggerFired(_ terminal: Termination) {
        let deliverNow = state.withLock { state -> Bool in
            switch state.phase {
            case .idle:
                state.phase = .stopped
                return true
            case .emitting:
                state.phase = .emittingThenStop(terminal)
                return false
            case .emittingThenStop, .stopped:
                return false
            }
        }
        if deliverNow {
            forward(terminal)
        }
    }

    override func didDispose() {
        let trigger = state.withLock { state -> Disposable? in
            state.phase = .stopped
            defer { state.trigger = nil }
            return state.trigger
        }
        trigger?.dispose()
        super.didDispose()
    }

    private func stopFromSource() -> Bool {
        state.withLock { state -> Bool in
            switch state.phase {
            case .idle, .emitting:
                state.phase = .stopped
                return true
            case .emittingThenStop, .stopped:
                return false
            }
        }
    }

}

/// Observes `other` for a `TakeUntilSink`.
// @unchecked Sendable: `parent` is immutable; the lifecycle word is atomic.
final class TakeUntilTrigger<Other, Element>: SubscriptionNode<Other>, @unchecked Sendable {
    private let parent: TakeUntilSink<Element>

    init(parent: TakeUntilSink<Element>) {
        self.parent = parent
        super.init()
    }

    override func onNext(_ element: Other) {
        if claimTerminal() {
            parent.triggerFired(.completed)
            dispose()
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            parent.triggerFired(.error(error))
            dispose()
        }
    }

    override func onCompleted() {
        // Without an element, `other` no longer matters; the source goes on.
        if claimTerminal() {
            dispose()
        }
    }
}
