/// The state of a `zip` or `combineLatest` of 4 sources.
struct CombiningState4<E1, E2, E3, E4>: CombiningState {
    var first = FIFOBuffer<E1>()
    var second = FIFOBuffer<E2>()
    var third = FIFOBuffer<E3>()
    var fourth = FIFOBuffer<E4>()
    /// combineLatest only: combinations formed while another thread was delivering.
    var queue = FIFOBuffer<(E1, E2, E3, E4)>()
    var progress = CombiningProgress(arity: 4)

    var isReady: Bool {
        @inline(__always) get { !first.isEmpty && !second.isEmpty && !third.isEmpty && !fourth.isEmpty }
    }

    mutating func dropBuffers() {
        self = Self()
    }
}

/// `zip` or `combineLatest` of 4 sources: the arity-specific hot path of `CombiningSink`.
final class Combine4Sink<E1, E2, E3, E4, Result>:
    // @unchecked Sendable: the buffers live in `state`; `resultSelector` is immutable.
    CombiningSink<CombiningState4<E1, E2, E3, E4>, Result>, @unchecked Sendable {
    private let resultSelector: @Sendable (E1, E2, E3, E4) throws -> Result

    init(
        mode: CombiningMode, resultSelector: @escaping @Sendable (E1, E2, E3, E4) throws -> Result,
        downstream: ObserverNode<Result>
    ) {
        self.resultSelector = resultSelector
        super.init(mode: mode, state: CombiningState4(), downstream: downstream)
    }

    func run(
        _ source1: Observable<E1>, _ source2: Observable<E2>, _ source3: Observable<E3>, _ source4: Observable<E4>
    ) {
        let observer1 = SourceObserver<E1>(parent: self, index: 0) { self.next1($0) }
        let observer2 = SourceObserver<E2>(parent: self, index: 1) { self.next2($0) }
        let observer3 = SourceObserver<E3>(parent: self, index: 2) { self.next3($0) }
        let observer4 = SourceObserver<E4>(parent: self, index: 3) { self.next4($0) }
        setUpstream(SubscriptionGroup(members: [observer1, observer2, observer3, observer4]))
        observer1.subscribe(to: source1, unless: isStoppedOrDisposed)
        observer2.subscribe(to: source2, unless: isStoppedOrDisposed)
        observer3.subscribe(to: source3, unless: isStoppedOrDisposed)
        observer4.subscribe(to: source4, unless: isStoppedOrDisposed)
    }

    private func next1(_ element: E1) {
        withSlots { slot1, slot2, slot3, slot4 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.first.record(element, mode)
                return claimResult(&state, slot1, slot2, slot3, slot4)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2, slot3, slot4) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    private func next2(_ element: E2) {
        withSlots { slot1, slot2, slot3, slot4 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.second.record(element, mode)
                return claimResult(&state, slot1, slot2, slot3, slot4)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2, slot3, slot4) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    private func next3(_ element: E3) {
        withSlots { slot1, slot2, slot3, slot4 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.third.record(element, mode)
                return claimResult(&state, slot1, slot2, slot3, slot4)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2, slot3, slot4) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    private func next4(_ element: E4) {
        withSlots { slot1, slot2, slot3, slot4 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.fourth.record(element, mode)
                return claimResult(&state, slot1, slot2, slot3, slot4)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2, slot3, slot4) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    /// Runs `body` with one uninitialized stack slot per source.
    @inline(__always)
    private func withSlots(_ body: (ValueSlot<E1>, ValueSlot<E2>, ValueSlot<E3>, ValueSlot<E4>) -> Void) {
        withUnsafeTemporaryAllocation(of: E1.self, capacity: 1) { slot1 in
            withUnsafeTemporaryAllocation(of: E2.self, capacity: 1) { slot2 in
                withUnsafeTemporaryAllocation(of: E3.self, capacity: 1) { slot3 in
                    withUnsafeTemporaryAllocation(of: E4.self, capacity: 1) { slot4 in
                        body(slot1, slot2, slot3, slot4)
                    }
                }
            }
        }
    }

    /// Under the lock, after a source sent an element: if a result is ready and this caller took
    /// the emission right, moves (zip) or copies (combineLatest) its values into the slots;
    /// if someone else is delivering, combineLatest queues a copy (a later element would
    /// replace it) while zip leaves the elements buffered for the drain loop; if no result is
    /// ready, decides whether the element ends the sequence (no result can ever use it).
    @inline(__always)
    private func claimResult(
        _ state: inout CombiningState4<E1, E2, E3, E4>,
        _ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>, _ slot3: ValueSlot<E3>, _ slot4: ValueSlot<E4>
    ) -> CombiningClaim {
        guard state.isReady else {
            return mode.endsWhenAnElementCanNeverPair && state.progress.elementFoundNoPartner() ? .ended : .none
        }
        if drainLoop.signal() {
            slot1.initializeElement(at: 0, to: state.first.take(mode))
            slot2.initializeElement(at: 0, to: state.second.take(mode))
            slot3.initializeElement(at: 0, to: state.third.take(mode))
            slot4.initializeElement(at: 0, to: state.fourth.take(mode))
            return .tuple
        }
        if mode == .combineLatest {
            Self.enqueueCombination(&state)
        }
        return .none
    }

    /// combineLatest under contention: queues a copy of the current combination. Kept out of line
    /// so that zip's path never asks for the tuple's type metadata (a run-time look-up per call).
    @inline(never)
    private static func enqueueCombination(_ state: inout CombiningState4<E1, E2, E3, E4>) {
        state.queue.append((
            state.first.peekFirst(), state.second.peekFirst(),
            state.third.peekFirst(), state.fourth.peekFirst()
        ))
    }

    /// Sends the selector's result; false if the selector threw and the sequence ended.
    @inline(__always)
    private func deliver(
        _ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>, _ slot3: ValueSlot<E3>, _ slot4: ValueSlot<E4>
    ) -> Bool {
        let result: Result
        do {
            result = try resultSelector(
                slot1.moveElement(from: 0), slot2.moveElement(from: 0),
                slot3.moveElement(from: 0), slot4.moveElement(from: 0)
            )
        } catch {
            forwardError(error)
            return false
        }
        forwardNext(result)
        return true
    }

    override func drainOne() -> DrainStep {
        var step = DrainStep.idle
        withSlots { slot1, slot2, slot3, slot4 in
            var terminal: Termination?
            let tookValues = state.withLock { state -> Bool in
                if !state.queue.isEmpty {
                    let combination = state.queue.removeFirst()
                    slot1.initializeElement(at: 0, to: combination.0)
                    slot2.initializeElement(at: 0, to: combination.1)
                    slot3.initializeElement(at: 0, to: combination.2)
                    slot4.initializeElement(at: 0, to: combination.3)
                    return true
                }
                if mode == .zip && state.isReady {
                    slot1.initializeElement(at: 0, to: state.first.removeFirst())
                    slot2.initializeElement(at: 0, to: state.second.removeFirst())
                    slot3.initializeElement(at: 0, to: state.third.removeFirst())
                    slot4.initializeElement(at: 0, to: state.fourth.removeFirst())
                    return true
                }
                terminal = state.progress.takeTerminal()
                return false
            }
            if tookValues {
                step = deliver(slot1, slot2, slot3, slot4) ? .delivered : .finished
            } else if let terminal {
                forward(terminal)
                step = .finished
            }
        }
        return step
    }
}
