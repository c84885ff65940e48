/// The state machine of `combineLatest` over three sources; it works as `CombineLatest2Sink` does.
// @unchecked Sendable: the latest values, queue and progress live in `state`; the rest is immutable.
final class CombineLatest3Sink<E1, E2, E3, Result>: DrainingSink<Never, Result>, @unchecked Sendable, SourceObserverParent {
    private struct State {
        var latest1 = FIFOBuffer<E1>()
        var latest2 = FIFOBuffer<E2>()
        var latest3 = FIFOBuffer<E3>()
        var queue = FIFOBuffer<(E1, E2, E3)>()
        var progress = CombiningProgress(arity: 3)

        var hasCombination: Bool {
            @inline(__always) get { !latest1.isEmpty && !latest2.isEmpty && !latest3.isEmpty }
        }
    }

    private let state = LockedState.make(State())
    private let resultSelector: @Sendable (E1, E2, E3) throws -> Result

    init(resultSelector: @escaping @Sendable (E1, E2, E3) throws -> Result, downstream: ObserverNode<Result>) {
        self.resultSelector = resultSelector
        super.init(downstream: downstream)
    }

    func run(_ source1: Observable<E1>, _ source2: Observable<E2>, _ source3: Observable<E3>) {
        let observer1 = SourceObserver<E1>(parent: self, index: 0) { self.next1($0) }
        let observer2 = SourceObserver<E2>(parent: self, index: 1) { self.next2($0) }
        let observer3 = SourceObserver<E3>(parent: self, index: 2) { self.next3($0) }
        setUpstream(SubscriptionGroup(members: [observer1, observer2, observer3]))
        observer1.subscribe(to: source1, unless: isStoppedOrDisposed)
        observer2.subscribe(to: source2, unless: isStoppedOrDisposed)
        observer3.subscribe(to: source3, unless: isStoppedOrDisposed)
    }

    private func next1(_ element: E1) {
        withTupleSlots { slot1, slot2, slot3 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.latest1.replaceAll(with: element)
                return claimCombination(&state, slot1, slot2, slot3)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2, slot3) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    private func next2(_ element: E2) {
        withTupleSlots { slot1, slot2, slot3 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.latest2.replaceAll(with: element)
                return claimCombination(&state, slot1, slot2, slot3)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2, slot3) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    private func next3(_ element: E3) {
        withTupleSlots { slot1, slot2, slot3 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.latest3.replaceAll(with: element)
                return claimCombination(&state, slot1, slot2, slot3)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2, slot3) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    /// Runs `body` with one uninitialized stack slot per source.
    @inline(__always)
    private func withTupleSlots(_ body: (ValueSlot<E1>, ValueSlot<E2>, ValueSlot<E3>) -> Void) {
        withUnsafeTemporaryAllocation(of: E1.self, capacity: 1) { slot1 in
            withUnsafeTemporaryAllocation(of: E2.self, capacity: 1) { slot2 in
                withUnsafeTemporaryAllocation(of: E3.self, capacity: 1) { slot3 in
                    body(slot1, slot2, slot3)
                }
            }
        }
    }

    /// Under the lock, after a latest value changed: if every source has a value, signals the new
    /// combination and either copies it into the slots (this caller took the emission right:
    /// `.tuple`) or queues it for the drain loop; otherwise decides whether the element ends the
    /// sequence (no combination can ever include it).
    @inline(__always)
    private func claimCombination(
        _ state: inout State,
        _ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>,
        _ slot3: ValueSlot<E3>
    ) -> CombiningClaim {
        guard state.hasCombination else {
            return state.progress.elementFoundNoPartner() ? .ended : .none
        }
        if pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0 {
            slot1.initializeElement(at: 0, to: state.latest1.peekFirst())
            slot2.initializeElement(at: 0, to: state.latest2.peekFirst())
            slot3.initializeElement(at: 0, to: state.latest3.peekFirst())
            return .tuple
        }
        state.queue.append((state.latest1.peekFirst(), state.latest2.peekFirst(), state.latest3.peekFirst()))
        return .none
    }

    /// Sends the selector's result; false if the selector threw and the sequence ended.
    @inline(__always)
    private func deliver(_ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>, _ slot3: ValueSlot<E3>) -> Bool {
        let result: Result
        do {
            result = try resultSelector(
                slot1.moveElement(from: 0), slot2.moveElement(from: 0),
                slot3.moveElement(from: 0)
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
        withTupleSlots { slot1, slot2, slot3 in
            var terminal: Termination?
            let tookCombination = state.withLock { state -> Bool in
                if !state.queue.isEmpty {
                    let combination = state.queue.removeFirst()
                    slot1.initializeElement(at: 0, to: combination.0)
                    slot2.initializeElement(at: 0, to: combination.1)
                    slot3.initializeElement(at: 0, to: combination.2)
                    return true
                }
                terminal = state.progress.takeTerminal()
                return false
            }
            if tookCombination {
                step = deliver(slot1, slot2, slot3) ? .delivered : .finished
            } else if let terminal {
                forward(terminal)
                step = .finished
            }
        }
        return step
    }

    func sourceCompleted(_ index: Int) {
        let ended = state.withLock { state in
            state.progress.sourceCompleted()
        }
        if ended {
            signal()
        }
    }

    func sourceFailed(_ error: Error) {
        if state.withLock({ $0.progress.sourceFailed(error) }) {
            signal()
        }
    }

    override func didDispose() {
        // The latest and queued values are released after unlocking.
        _ = state.withLock { state -> State in
            defer {
                state = State()
                state.progress.cancel()
            }
            return state
        }
        super.didDispose()
    }
}
