/// The state machine of `zip` over a collection; it works as `Zip2Sink` does, with one buffer and
/// one completion flag per source.
// @unchecked Sendable: the buffers and flags live in `state`; the rest is immutable.
final class ZipCollectionSink<SourceElement, Result>: DrainingSink<Never, Result>, @unchecked Sendable, SourceObserverParent {
    private struct State {
        var buffers: [FIFOBuffer<SourceElement>]
        /// How many buffers hold at least one element: a combination is ready when all do.
        var nonEmptyCount = 0
        var progress: CombiningProgress

        /// Whether every buffer holds an element (false once disposed, when there are no buffers).
        var hasCombination: Bool {
            !buffers.isEmpty && nonEmptyCount == buffers.count
        }
    }

    private let state: LockedState<State>
    private let resultSelector: @Sendable ([SourceElement]) throws -> Result

    init(count: Int, resultSelector: @escaping @Sendable ([SourceElement]) throws -> Result, downstream: ObserverNode<Result>) {
        state = .make(State(
            buffers: Array(repeating: FIFOBuffer(), count: count),
            progress: CombiningProgress(arity: count)
        ))
        self.resultSelector = resultSelector
        super.init(downstream: downstream)
    }

    func run(_ sources: [Observable<SourceElement>]) {
        let observers = sources.indices.map { index in
            SourceObserver<SourceElement>(parent: self, index: index) { self.next($0, at: index) }
        }
        setUpstream(SubscriptionGroup(members: observers))
        for (observer, source) in zip(observers, sources) {
            observer.subscribe(to: source, unless: isStoppedOrDisposed)
        }
    }

    private func next(_ element: SourceElement, at index: Int) {
        var values: [SourceElement] = []
        let claim = state.withLock { state -> CombiningClaim in
            guard !state.progress.isStopped else { return .none }
            if state.buffers[index].isEmpty {
                state.nonEmptyCount += 1
            }
            state.buffers[index].append(element)
            guard state.hasCombination else {
                return state.progress.elementFoundNoPartner() ? .ended : .none
            }
            guard pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0 else { return .none }
            values = take(&state)
            return .tuple
        }
        switch claim {
        case .tuple: if deliver(values) { releaseEmission() }
        case .ended: signal()
        case .none: break
        }
    }

    /// Under the lock: removes the next combination.
    private func take(_ state: inout State) -> [SourceElement] {
        var values: [SourceElement] = []
        values.reserveCapacity(state.buffers.count)
        for index in state.buffers.indices {
            values.append(state.buffers[index].removeFirst())
            if state.buffers[index].isEmpty {
                state.nonEmptyCount -= 1
            }
        }
        return values
    }

    /// Sends the selector's result; false if the selector threw and the sequence ended.
    private func deliver(_ values: [SourceElement]) -> Bool {
        let result: Result
        do {
            result = try resultSelector(values)
        } catch {
            forwardError(error)
            return false
        }
        forwardNext(result)
        return true
    }

    override func drainOne() -> DrainStep {
        var terminal: Termination?
        var values: [SourceElement] = []
        let tookValues = state.withLock { state -> Bool in
            if state.hasCombination {
                values = take(&state)
                return true
            }
            terminal = state.progress.takeTerminal()
            return false
        }
        if tookValues {
            return deliver(values) ? .delivered : .finished
        }
        if let terminal {
            forward(terminal)
            return .finished
        }
        return .idle
    }

    func sourceCompleted(_ index: Int) {
        let ended = state.withLock { $0.progress.sourceCompleted() }
        if ended {
            signal()
        }
    }

    func sourceFailed(_ error: Error) {
        let ended = state.withLock { $0.progress.sourceFailed(error) }
        if ended {
            signal()
        }
    }

    override func didDispose() {
        // The buffered elements are released after unlocking.
        _ = state.withLock { state -> [FIFOBuffer<SourceElement>] in
            state.progress.cancel()
            state.nonEmptyCount = 0
            defer { state.buffers = [] }
            return state.buffers
        }
        super.didDispose()
    }
}
