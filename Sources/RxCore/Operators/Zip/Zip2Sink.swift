/// The state machine of `zip` over two sources; see `CombiningProgress` for when it completes and
/// `DrainingSink` for how deliveries are serialized.
///
/// An element takes the lock once: it is buffered and, if it completes a tuple and no one is
/// delivering, the tuple is moved out in the same critical section and delivered after unlocking.
///
/// The sink runs as unspecialized generic code, where every generic value built on the hot path (an
/// optional tuple, say) costs a type-metadata look-up that is dearer than the lock. So the values
/// leave the critical section through stack slots typed by the sink's own parameters, the lock
/// closures return plain flags, and no method of a generic struct is called there unless inlined.
// @unchecked Sendable: the buffers and progress live in `state`; the rest is immutable.
final class Zip2Sink<E1, E2, Result>: DrainingSink<Never, Result>, SourceObserverParent, @unchecked Sendable {
    private struct State {
        var buffer1 = FIFOBuffer<E1>()
        var buffer2 = FIFOBuffer<E2>()
        var progress = CombiningProgress(arity: 2)
    }

    private let state = LockedState.make(State())
    private let resultSelector: @Sendable (E1, E2) throws -> Result

    init(resultSelector: @escaping @Sendable (E1, E2) throws -> Result, downstream: ObserverNode<Result>) {
        self.resultSelector = resultSelector
        super.init(downstream: downstream)
    }

    func run(_ source1: Observable<E1>, _ source2: Observable<E2>) {
        let observer1 = SourceObserver<E1>(parent: self, index: 0) { self.next1($0) }
        let observer2 = SourceObserver<E2>(parent: self, index: 1) { self.next2($0) }
        setUpstream(SubscriptionGroup(members: [observer1, observer2]))
        observer1.subscribe(to: source1, unless: isStoppedOrDisposed)
        observer2.subscribe(to: source2, unless: isStoppedOrDisposed)
    }

    private func next1(_ element: E1) {
        withTupleSlots { slot1, slot2 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.buffer1.append(element)
                return claimTuple(&state, slot1, slot2)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    private func next2(_ element: E2) {
        withTupleSlots { slot1, slot2 in
            let claim = state.withLock { state -> CombiningClaim in
                guard !state.progress.isStopped else { return .none }
                state.buffer2.append(element)
                return claimTuple(&state, slot1, slot2)
            }
            switch claim {
            case .tuple: if deliver(slot1, slot2) { releaseEmission() }
            case .ended: signal()
            case .none: break
            }
        }
    }

    /// Runs `body` with one uninitialized stack slot per source.
    @inline(__always)
    private func withTupleSlots(
        _ body: (ValueSlot<E1>, ValueSlot<E2>) -> Void
    ) {
        withUnsafeTemporaryAllocation(of: E1.self, capacity: 1) { slot1 in
            withUnsafeTemporaryAllocation(of: E2.self, capacity: 1) { slot2 in
                body(slot1, slot2)
            }
        }
    }

    /// Under the lock: if a tuple is ready, signals it; if this caller took the emission right,
    /// moves the tuple into the slots and returns true (otherwise the owner's drain loop takes it).
    @inline(__always)
    private func claimTuple(
        _ state: inout State, _ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>
    ) -> CombiningClaim {
        guard !state.buffer1.isEmpty, !state.buffer2.isEmpty else {
            return state.progress.elementFoundNoPartner() ? .ended : .none
        }
        guard pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0 else { return .none }
        takeTuple(&state, slot1, slot2)
        return .tuple
    }

    /// Under the lock: moves the next tuple into the slots.
    @inline(__always)
    private func takeTuple(
        _ state: inout State, _ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>
    ) {
        slot1.initializeElement(at: 0, to: state.buffer1.removeFirst())
        slot2.initializeElement(at: 0, to: state.buffer2.removeFirst())
    }

    /// Moves the tuple out of the slots, runs the result selector and sends the result; false if
    /// the selector threw (and the error was delivered, ending the sequence).
    @inline(__always)
    private func deliver(_ slot1: ValueSlot<E1>, _ slot2: ValueSlot<E2>) -> Bool {
        let result: Result
        do {
            result = try resultSelector(slot1.moveElement(from: 0), slot2.moveElement(from: 0))
        } catch {
            forwardError(error)
            return false
        }
        forwardNext(result)
        return true
    }

    override func drainOne() -> DrainStep {
        var step = DrainStep.idle
        withTupleSlots { slot1, slot2 in
            var terminal: Termination?
            let tookTuple = state.withLock { state -> Bool in
                if !state.buffer1.isEmpty && !state.buffer2.isEmpty {
                    takeTuple(&state, slot1, slot2)
                    return true
                }
                terminal = state.progress.takeTerminal()
                return false
            }
            if tookTuple {
                step = deliver(slot1, slot2) ? .delivered : .finished
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
