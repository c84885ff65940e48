/// The state machine of `zip` over three sources; it works as `Zip2Sink` does.
// @unchecked Sendable: the buffers and progress live in `state`; the rest is immutable.
final class Zip3Sink<E1, E2, E3, Result>: DrainingSink<Never, Result>, SourceObserverParent, @unchecked Sendable {
    private struct State {
        var buffer1 = FIFOBuffer<E1>()
        var buffer2 = FIFOBuffer<E2>()
        var buffer3 = FIFOBuffer<E3>()
        var progress = CombiningProgress(arity: 3)

        var hasTuple: Bool {
            @inline(__always) get { !buffer1.isEmpty && !buffer2.isEmpty && !buffer3.isEmpty }
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
                state.buffer1.append(element)
                return claimTuple(&state, slot1, slot2, slot3)
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
                state.buffer2.append(element)
                return claimTuple(&state, slot1, slot2, slot3)
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
                state.buffer3.append(element)
                return claimTuple(&state, slot1, slot2, slot3)
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

    /// Under the lock, after a source sent an element: if a tuple is ready and this caller took
    /// the emission right, moves it into the slots; otherwise decides whether the element ends the
    /// sequence (it can never be paired).
    @inline(__always)
    private func claimTuple(
        _ state: inout State, _ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>, _ slot3: ValueSlot<E3>
    ) -> CombiningClaim {
        guard state.hasTuple else {
            return state.progress.elementFoundNoPartner() ? .ended : .none
        }
        guard pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0 else { return .none }
        takeTuple(&state, slot1, slot2, slot3)
        return .tuple
    }

    /// Under the lock: moves the next tuple into the slots.
    @inline(__always)
    private func takeTuple(
        _ state: inout State, _ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>, _ slot3: ValueSlot<E3>
    ) {
        slot1.initializeElement(at: 0, to: state.buffer1.removeFirst())
        slot2.initializeElement(at: 0, to: state.buffer2.removeFirst())
        slot3.initializeElement(at: 0, to: state.buffer3.removeFirst())
    }

    /// Sends the selector's result; false if the selector threw and the sequence ended.
    @inline(__always)
    private func deliver(_ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>, _ slot3: ValueSlot<E3>) -> Bool {
        let result: Result
        do {
            result = try resultSelector(
                slot1.moveElement(from: 0), slot2.moveElement(from: 0), slot3.moveElement(from: 0)
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
            let tookTuple = state.withLock { state -> Bool in
                if state.hasTuple {
                    takeTuple(&state, slot1, slot2, slot3)
                    return true
                }
                terminal = state.progress.takeTerminal()
                return false
            }
            if tookTuple {
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
        // The buffered elements are released after unlocking.
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
