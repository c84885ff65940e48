/// The one state machine behind `zip` and `combineLatest` of every arity; see `CombiningProgress`
/// for when it completes and `DrainingSink` for how deliveries are serialized.
///
/// An element takes the lock once: it is recorded and, if it completes a result and no one is
/// delivering, the result's values are moved out in the same critical section and sent after
/// unlocking. If someone is delivering, zip leaves the elements buffered for the drain loop, and
/// combineLatest queues a copy of the combination (a later element would replace it).
///
/// The sink runs as unspecialized generic code, where every generic value built on the hot path (an
/// optional tuple, say) costs a type-metadata look-up dearer than the lock; so values leave the
/// critical section through a stack slot of the buffers' `Values` type and the lock closures return
/// plain enums.
// @unchecked Sendable: the buffers, queue and progress live in `state`; the rest is immutable.
final class CombiningSink<Buffers: CombiningBuffers, Result>: DrainingSink<Never, Result>, SourceObserverParent,
    @unchecked Sendable {
    private struct State {
        var buffers: Buffers
        /// combineLatest only: combinations formed while another thread was delivering.
        var queue = FIFOBuffer<Buffers.Values>()
        var progress: CombiningProgress
    }

    private let mode: CombiningMode
    private let state: LockedState<State>
    private let combine: (Buffers.Values) throws -> Result

    init(
        mode: CombiningMode,
        buffers: Buffers,
        arity: Int,
        combine: @escaping (Buffers.Values) throws -> Result,
        downstream: ObserverNode<Result>
    ) {
        self.mode = mode
        self.state = .make(State(buffers: buffers, progress: CombiningProgress(arity: arity)))
        self.combine = combine
        super.init(downstream: downstream)
    }

    /// An observer for source `index` whose elements `record` stores in that source's buffer.
    func observer<Element>(
        index: Int, record: @escaping (inout Buffers, Element, CombiningMode) -> Void
    ) -> SourceObserver<Element> {
        SourceObserver(parent: self, index: index) { element in
            self.receive(element, record)
        }
    }

    /// Subscribes every observer (in order) to its source, unless the sink already ended.
    func run(_ subscriptions: [(observer: ClassDisposable, subscribe: (Bool) -> Void)]) {
        setUpstream(SubscriptionGroup(members: subscriptions.map(\.observer)))
        for subscription in subscriptions {
            subscription.subscribe(isStoppedOrDisposed)
        }
    }

    private func receive<Element>(_ element: Element, _ record: (inout Buffers, Element, CombiningMode) -> Void) {
        withUnsafeTemporaryAllocation(of: Buffers.Values.self, capacity: 1) { slot in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                record(&state.buffers, element, mode)
                guard state.buffers.isReady else {
                    return state.progress.elementFoundNoPartner() ? .ended : .none
                }
                if pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0 {
                    slot.initializeElement(at: 0, to: state.buffers.take(mode))
                    return .values
                }
                if mode == .combineLatest {
                    state.queue.append(state.buffers.take(mode))
                }
                return .none
            }
            switch claim {
            case .values:
                if deliver(slot) {
                    releaseEmission()
                }
            case .ended:
                signal()
            case .none:
                break
            }
        }
    }

    /// Sends the result of the values in `slot` (moving them out); false if `combine` threw and the
    /// sequence ended.
    @inline(__always)
    private func deliver(_ slot: ValueSlot<Buffers.Values>) -> Bool {
        let result: Result
        do {
            result = try combine(slot.moveElement(from: 0))
        } catch {
            forwardError(error)
            return false
        }
        forwardNext(result)
        return true
    }

    override func drainOne() -> DrainStep {
        withUnsafeTemporaryAllocation(of: Buffers.Values.self, capacity: 1) { slot in
            var terminal: PendingTerminal?
            let tookValues = state.withLock { state -> Bool in
                if !state.queue.isEmpty {
                    slot.initializeElement(at: 0, to: state.queue.removeFirst())
                    return true
                }
                if mode == .zip && state.buffers.isReady {
                    slot.initializeElement(at: 0, to: state.buffers.take(mode))
                    return true
                }
                terminal = state.progress.takeTerminal()
                return false
            }
            if tookValues {
                return deliver(slot) ? .delivered : .finished
            }
            if let terminal {
                deliver(terminal)
                return .finished
            }
            return .idle
        }
    }

    func sourceCompleted(_ index: Int) {
        if state.withLock({ $0.progress.sourceCompleted() }) {
            signal()
        }
    }

    func sourceFailed(_ error: Error) {
        if state.withLock({ $0.progress.sourceFailed(error) }) {
            signal()
        }
    }

    override func didDispose() {
        // The buffered elements are released after unlocking.
        _ = state.withLock { state -> (Buffers, FIFOBuffer<Buffers.Values>) in
            defer {
                state.buffers.removeAll()
                state.queue.removeAll()
                state.progress.cancel()
            }
            return (state.buffers, state.queue)
        }
        super.didDispose()
    }
}

extension SourceObserver {
    /// This observer and how to subscribe it, for `CombiningSink.run(_:)`.
    func subscription(to source: Observable<Element>) -> (observer: ClassDisposable, subscribe: (Bool) -> Void) {
        (self, { self.subscribe(to: source, unless: $0) })
    }
}
