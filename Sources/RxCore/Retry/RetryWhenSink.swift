/// The state machine of `retry(when:)`.
///
/// Phases: `running` (an attempt is subscribed), `waiting` (it failed; its error went to the
/// notification handler; the next trigger element starts another attempt), `done`. Downstream
/// hears from the running attempt, or, in `waiting`, from the trigger ending; the two never
/// overlap because the trigger only reaches downstream when no attempt runs. A trigger that ends
/// while an attempt runs is remembered (`latched`) and delivered when that attempt fails.
// @unchecked Sendable: all mutable state is in `state`; `errors` is immutable.
final class RetryWhenSink<Element, Failure: Error>: ResubscribingSink<Element>, @unchecked Sendable {
    private enum Phase {
        case running
        case waiting
        case done
    }

    private enum FailureAction {
        case none
        case deliver(Termination)
        case notify
    }

    private struct State {
        var phase = Phase.running
        var latched: Termination?
        var trigger: Disposable?
        /// Errors waiting for the relay: the handler's reaction may fail the next attempt at once,
        /// and that error is handed over after the current one, not from inside it.
        var pendingErrors = FIFOBuffer<Failure>()
    }

    private let errors: RetryErrorRelay<Failure>
    private let state = LockedState<State>.make(State())
    /// Who hands errors to the relay.
    private let notifications = DrainLoop()

    init(source: Observable<Element>, errors: RetryErrorRelay<Failure>, downstream: ObserverNode<Element>) {
        self.errors = errors
        super.init(source: source, downstream: downstream)
    }

    /// Keeps the trigger's subscription, to dispose it with the sink (at once if already disposed).
    func attachTrigger(_ trigger: Disposable) {
        let disposeNow = state.withLock { state -> Bool in
            if isDisposed { return true }
            state.trigger = trigger
            return false
        }
        if disposeNow {
            trigger.dispose()
        }
    }

    override func attemptFailed(_ error: Error) {
        guard let failure = error as? Failure else {
            if stop() {
                forwardError(error)
            }
            return
        }
        let action = state.withLock { state -> FailureAction in
            guard case .running = state.phase else { return .none }
            if let latched = state.latched {
                state.phase = .done
                return .deliver(latched)
            }
            state.phase = .waiting
            state.pendingErrors.append(failure)
            return .notify
        }
        switch action {
        case .none:
            return
        case .deliver(let terminal):
            forward(terminal)
        case .notify:
            if notifications.signal() {
                notifications.run(missed: 1) { notifyOne() }
            }
        }
    }

    /// Hands the next waiting error to the relay; called by the owner of `notifications` only.
    private func notifyOne() -> DrainStep {
        guard let failure = state.withLock({ $0.pendingErrors.popFirst() }) else { return .idle }
        errors.onNext(failure)
        return .delivered
    }

    override func attemptCompleted() {
        if stop() {
            forwardCompleted()
        }
    }

    /// The trigger emitted: start another attempt if one failed and is waiting for it.
    func triggerFired() {
        let starts = state.withLock { state -> Bool in
            guard case .waiting = state.phase else { return false }
            state.phase = .running
            return true
        }
        if starts {
            resubscribe()
        }
    }

    /// The trigger ended: end the sequence now if no attempt runs, else when the running one fails.
    func triggerEnded(_ terminal: Termination) {
        let deliverNow = state.withLock { state -> Bool in
            switch state.phase {
            case .waiting:
                state.phase = .done
                return true
            case .running:
                if state.latched == nil {
                    state.latched = terminal
                }
                return false
            case .done:
                return false
            }
        }
        if deliverNow {
            forward(terminal)
        }
    }

    override func didDispose() {
        let (trigger, dropped) = state.withLock { state -> (Disposable?, FIFOBuffer<Failure>) in
            state.phase = .done
            defer { state.trigger = nil }
            return (state.trigger, state.pendingErrors.takeAll())
        }
        _ = dropped
        trigger?.dispose()
        super.didDispose()
    }

    private func stop() -> Bool {
        state.withLock { state -> Bool in
            if case .done = state.phase { return false }
            state.phase = .done
            return true
        }
    }

}

/// Observes the trigger of a `RetryWhenSink`.
// @unchecked Sendable: `parent` is immutable; the lifecycle word is atomic.
final class RetryWhenTrigger<Trigger, Element, Failure: Error>: SubscriptionNode<Trigger>, @unchecked Sendable {
    private let parent: RetryWhenSink<Element, Failure>

    init(parent: RetryWhenSink<Element, Failure>) {
        self.parent = parent
        super.init()
    }

    override func onNext(_ element: Trigger) {
        if !isStoppedOrDisposed {
            parent.triggerFired()
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            parent.triggerEnded(.error(error))
            dispose()
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            parent.triggerEnded(.completed)
            dispose()
        }
    }
}
