/// The state machine of `flatMapLatest` and `switchLatest`: one inner sequence at a time, the
/// latest; see `DrainingSink` for how deliveries are serialized.
///
/// Each inner sequence gets an id; the state remembers the latest. An inner event is accepted only
/// if its id is still the latest, checked under the lock in the same critical section that claims
/// the emission right (or queues the element), so an element of a replaced sequence never gets
/// through, whichever thread it comes from. One lock acquisition per element.
// @unchecked Sendable: mutable state lives in `state`; the rest is immutable.
final class FlatMapLatestSink<SourceElement, Element>: DrainingSink<SourceElement, Element>, @unchecked Sendable {
    typealias Inner = FlatMapLatestInnerObserver<SourceElement, Element>

    private struct State {
        /// Elements waiting for the emission right.
        var queue = FIFOBuffer<Element>()
        /// The id of the latest inner sequence (0 before the first).
        var latestID = 0
        /// The subscription of the latest inner sequence while it runs.
        var current: Disposable?
        var isOuterDone = false
        /// Set once a terminal event is decided or the sink is disposed: later input is dropped.
        var isStopped = false
        var terminal: Termination?
    }

    private let state = LockedState.make(State())
    private let selector: @Sendable (SourceElement) throws -> Observable<Element>

    init(selector: @escaping @Sendable (SourceElement) throws -> Observable<Element>, downstream: ObserverNode<Element>) {
        self.selector = selector
        super.init(downstream: downstream)
    }

    // MARK: Outer events

    override func onNext(_ element: SourceElement) {
        guard !isStoppedOrDisposed else { return }
        let source: Observable<Element>
        do {
            source = try selector(element)
        } catch {
            fail(error)
            return
        }
        var inner: Inner?
        var previous: Disposable?
        state.withLock { state in
            guard !state.isStopped else { return }
            state.latestID += 1
            let next = Inner(parent: self, id: state.latestID)
            previous = state.current
            state.current = next
            inner = next
        }
        previous?.dispose()
        guard let inner else { return }
        let subscription = source.subscribe(inner)
        if inner.isDisposed {
            subscription.dispose()
        } else {
            inner.setUpstream(subscription)
        }
    }

    override func onError(_ error: Error) {
        fail(error)
    }

    override func onCompleted() {
        let completed = state.withLock { state -> Bool in
            state.isOuterDone = true
            guard !state.isStopped, state.current == nil else { return false }
            state.isStopped = true
            state.terminal = .completed
            return true
        }
        if completed {
            signal()
        }
    }

    // MARK: Inner events

    /// An element of inner sequence `id`: dropped if that sequence was replaced; otherwise
    /// delivered at once if no one is delivering, else queued.
    final func innerNext(_ element: Element, id: Int) {
        let deliverNow = state.withLock { state -> Bool in
            guard !state.isStopped, state.latestID == id else { return false }
            if drainLoop.signal() {
                return true
            }
            state.queue.append(element)
            return false
        }
        if deliverNow {
            forwardNext(element)
            releaseEmission()
        }
    }

    final func innerCompleted(id: Int) {
        let completed = state.withLock { state -> Bool in
            guard !state.isStopped, state.latestID == id else { return false }
            state.current = nil
            guard state.isOuterDone else { return false }
            state.isStopped = true
            state.terminal = .completed
            return true
        }
        if completed {
            signal()
        }
    }

    final func innerFailed(_ error: Error, id: Int) {
        let failed = state.withLock { state -> Bool in
            guard state.latestID == id else { return false }
            return stop(&state, with: error)
        }
        if failed {
            signal()
        }
    }

    /// An error from the outer sequence or the selector.
    private func fail(_ error: Error) {
        if state.withLock({ stop(&$0, with: error) }) {
            signal()
        }
    }

    private func stop(_ state: inout State, with error: Error) -> Bool {
        guard !state.isStopped else { return false }
        state.isStopped = true
        state.terminal = .error(error)
        return true
    }

    // MARK: Delivery

    override func drainOne() -> DrainStep {
        deliver(state.withLock { $0.queue.nextEvent(before: $0.terminal) })
    }

    override func didDispose() {
        var queue = FIFOBuffer<Element>()
        let current = state.withLock { state -> Disposable? in
            state.isStopped = true
            state.terminal = nil
            swap(&queue, &state.queue)
            defer { state.current = nil }
            return state.current
        }
        current?.dispose()
        super.didDispose()
    }
}

/// Observes one inner sequence of a `FlatMapLatestSink`.
// @unchecked Sendable: immutable after init; the lifecycle word of SubscriptionNode is atomic.
final class FlatMapLatestInnerObserver<SourceElement, Element>: SubscriptionNode<Element>, @unchecked Sendable {
    private let parent: FlatMapLatestSink<SourceElement, Element>
    private let id: Int

    init(parent: FlatMapLatestSink<SourceElement, Element>, id: Int) {
        self.parent = parent
        self.id = id
        super.init()
    }

    override func onNext(_ element: Element) {
        if !isStoppedOrDisposed {
            parent.innerNext(element, id: id)
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            dispose()
            parent.innerFailed(error, id: id)
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            dispose()
            parent.innerCompleted(id: id)
        }
    }
}
