/// The sink of `withLatestFrom`: keeps `second`'s latest element and pairs each source element with
/// it, serializing the deliveries with an error from `second`, which may arrive on another thread.
// @unchecked Sendable: mutable state is in `state` (a LockedState); the rest is immutable or the
// atomic lifecycle word of Sink.
final class WithLatestFromSink<First, Second, Result>: Sink<First, Result>, @unchecked Sendable {
    enum Phase {
        /// No delivery in progress.
        case idle
        /// A source element is being delivered by the thread that set this.
        case emitting
        /// As `emitting`, and `second` failed meanwhile: the emitting thread delivers this next.
        case emittingThenFail(Error)
        /// A terminal event went out, or the sink was disposed.
        case stopped
    }

    struct State {
        var phase = Phase.idle
        /// The latest element of `second`; nil until it has emitted.
        var latest: Second?
        /// The subscription to `second`.
        var second: Disposable?
    }

    /// What a source element may do, decided under the lock.
    private enum Role {
        /// Deliver, then hand the delivery right back.
        case owner(Second)
        /// Deliver inside the delivery in progress (a reentrant call from our own downstream).
        case nested(Second)
        /// Drop it: `second` has not emitted yet, or the sink is stopping.
        case drop
    }

    private let resultSelector: @Sendable (First, Second) throws -> Result
    private let state = LockedState<State>.make(State())

    init(resultSelector: @escaping @Sendable (First, Second) throws -> Result, downstream: ObserverNode<Result>) {
        self.resultSelector = resultSelector
        super.init(downstream: downstream)
    }

    /// Keeps the subscription to `second`, to dispose it with the sink (at once if already stopped).
    func attach(_ second: Disposable) {
        let disposeNow = state.withLock { state -> Bool in
            if case .stopped = state.phase { return true }
            state.second = second
            return false
        }
        if disposeNow {
            second.dispose()
        }
    }

    override func onNext(_ element: First) {
        guard !isStoppedOrDisposed else { return }
        let role = state.withLock { state -> Role in
            switch state.phase {
            case .idle:
                guard let latest = state.latest else { return .drop }
                state.phase = .emitting
                return .owner(latest)
            case .emitting:
                // The source is serialized, so this is a reentrant call from our own delivery.
                guard let latest = state.latest else { return .drop }
                return .nested(latest)
            case .emittingThenFail, .stopped:
                return .drop
            }
        }
        switch role {
        case .drop:
            return
        case .nested(let latest):
            deliver(element, latest)
        case .owner(let latest):
            deliver(element, latest)
            releaseDeliveryRight()
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

    /// `second` emitted: its element becomes the latest.
    func secondEmitted(_ element: Second) {
        let replaced = state.withLock { state -> Second? in
            if case .stopped = state.phase { return nil }
            defer { state.latest = element }
            return state.latest
        }
        // Released here, after the lock: its deinit may run user code.
        _ = replaced
    }

    /// `second` failed: fail now, or right after the delivery in progress.
    func secondFailed(_ error: Error) {
        let failNow = state.withLock { state -> Bool in
            switch state.phase {
            case .idle:
                state.phase = .stopped
                return true
            case .emitting:
                state.phase = .emittingThenFail(error)
                return false
            case .emittingThenFail, .stopped:
                return false
            }
        }
        if failNow {
            forwardError(error)
        }
    }

    override func didDispose() {
        let (second, latest) = state.withLock { state -> (Disposable?, Second?) in
            state.phase = .stopped
            defer {
                state.second = nil
                state.latest = nil
            }
            return (state.second, state.latest)
        }
        second?.dispose()
        // Released here, after the lock: its deinit may run user code.
        _ = latest
        super.didDispose()
    }

    private func deliver(_ element: First, _ latest: Second) {
        let result: Result
        do {
            result = try resultSelector(element, latest)
        } catch {
            forwardError(error)
            return
        }
        forwardNext(result)
    }

    /// Ends a delivery this thread owned, then delivers an error from `second` that waited for it.
    private func releaseDeliveryRight() {
        let pending = state.withLock { state -> Error? in
            switch state.phase {
            case .emitting:
                state.phase = .idle
                return nil
            case .emittingThenFail(let error):
                state.phase = .stopped
                return error
            case .idle, .stopped:
                return nil
            }
        }
        if let pending {
            forwardError(pending)
        }
    }

    private func stopFromSource() -> Bool {
        state.withLock { state -> Bool in
            switch state.phase {
            case .idle, .emitting:
                state.phase = .stopped
                return true
            case .emittingThenFail, .stopped:
                return false
            }
        }
    }
}

/// Observes `second` for a `WithLatestFromSink`.
// @unchecked Sendable: `parent` is immutable; the lifecycle word is atomic.
final class WithLatestFromSecond<First, Second, Result>: SubscriptionNode<Second>, @unchecked Sendable {
    private let parent: WithLatestFromSink<First, Second, Result>

    init(parent: WithLatestFromSink<First, Second, Result>) {
        self.parent = parent
        super.init()
    }

    override func onNext(_ element: Second) {
        if !isStoppedOrDisposed {
            parent.secondEmitted(element)
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            dispose()
            parent.secondFailed(error)
        }
    }

    override func onCompleted() {
        // The latest element stays; only the subscription to `second` is released.
        if claimTerminal() {
            dispose()
        }
    }
}
