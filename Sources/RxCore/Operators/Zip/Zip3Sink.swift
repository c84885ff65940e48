/// The state machine of `zip` over three sources; it works as `Zip2Sink` does.
// @unchecked Sendable: the buffers and progress live in `state`; the rest is immutable.
final class Zip3Sink<E1, E2, E3, Result>: DrainingSink<Never, Result>, SourceObserverParent, @unchecked Sendable {
    private typealias Tuple = (E1, E2, E3)

    private struct State {
        var buffer1 = FIFOBuffer<E1>()
        var buffer2 = FIFOBuffer<E2>()
        var buffer3 = FIFOBuffer<E3>()
        var progress = ZipProgress()

        var hasTuple: Bool {
            !buffer1.isEmpty && !buffer2.isEmpty && !buffer3.isEmpty
        }

        func isEmpty(_ index: Int) -> Bool {
            switch index {
            case 0: return buffer1.isEmpty
            case 1: return buffer2.isEmpty
            default: return buffer3.isEmpty
            }
        }
    }

    private let state = LockedState.make(State())
    private let resultSelector: (E1, E2, E3) throws -> Result

    init(resultSelector: @escaping (E1, E2, E3) throws -> Result, downstream: ObserverNode<Result>) {
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
        let tuple = state.withLock { state -> Tuple? in
            guard !state.progress.isStopped else { return nil }
            state.buffer1.append(element)
            return claimTuple(&state)
        }
        if let tuple, deliver(tuple) {
            releaseEmission()
        }
    }

    private func next2(_ element: E2) {
        let tuple = state.withLock { state -> Tuple? in
            guard !state.progress.isStopped else { return nil }
            state.buffer2.append(element)
            return claimTuple(&state)
        }
        if let tuple, deliver(tuple) {
            releaseEmission()
        }
    }

    private func next3(_ element: E3) {
        let tuple = state.withLock { state -> Tuple? in
            guard !state.progress.isStopped else { return nil }
            state.buffer3.append(element)
            return claimTuple(&state)
        }
        if let tuple, deliver(tuple) {
            releaseEmission()
        }
    }

    /// Under the lock: signals a ready tuple; returns it if this caller took the emission right.
    @inline(__always)
    private func claimTuple(_ state: inout State) -> Tuple? {
        guard state.hasTuple,
              pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0
        else { return nil }
        return takeTuple(&state)
    }

    /// Under the lock: removes the next tuple, deciding and signalling completion if that exhausts
    /// a completed source.
    private func takeTuple(_ state: inout State) -> Tuple {
        let tuple = (state.buffer1.removeFirst(), state.buffer2.removeFirst(), state.buffer3.removeFirst())
        if state.progress.checkExhausted(0, bufferIsEmpty: state.buffer1.isEmpty)
            || state.progress.checkExhausted(1, bufferIsEmpty: state.buffer2.isEmpty)
            || state.progress.checkExhausted(2, bufferIsEmpty: state.buffer3.isEmpty) {
            pendingSignals.add(1, ordering: .acquiringAndReleasing)
        }
        return tuple
    }

    /// Sends the selector's result; false if the selector threw and the sequence ended.
    private func deliver(_ tuple: Tuple) -> Bool {
        let result: Result
        do {
            result = try resultSelector(tuple.0, tuple.1, tuple.2)
        } catch {
            forwardError(error)
            return false
        }
        forwardNext(result)
        return true
    }

    override func drainOne() -> DrainStep {
        var terminal: PendingTerminal?
        let tuple = state.withLock { state -> Tuple? in
            if state.hasTuple {
                return takeTuple(&state)
            }
            terminal = state.progress.takeTerminal()
            return nil
        }
        if let tuple {
            return deliver(tuple) ? .delivered : .finished
        }
        if let terminal {
            deliver(terminal)
            return .finished
        }
        return .idle
    }

    func sourceCompleted(_ index: Int) {
        let ended = state.withLock { state in
            state.progress.sourceCompleted(index, bufferIsEmpty: state.isEmpty(index))
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
