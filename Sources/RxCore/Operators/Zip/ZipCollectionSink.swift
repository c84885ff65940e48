/// The state machine of `zip` over a collection; it works as `Zip2Sink` does, with one buffer and
/// one completion flag per source.
// @unchecked Sendable: the buffers and flags live in `state`; the rest is immutable.
final class ZipCollectionSink<SourceElement, Result>: DrainingSink<Never, Result>, @unchecked Sendable, SourceObserverParent {
    private struct State {
        var buffers: [FIFOBuffer<SourceElement>]
        var isCompleted: [Bool]
        /// How many buffers hold at least one element: a combination is ready when all do.
        var nonEmptyCount = 0
        var completedCount = 0
        var isStopped = false
        var terminal: PendingTerminal?

        /// Whether every buffer holds an element (false once disposed, when there are no buffers).
        var hasCombination: Bool {
            !buffers.isEmpty && nonEmptyCount == buffers.count
        }
    }

    private let state: LockedState<State>
    private let resultSelector: ([SourceElement]) throws -> Result

    init(count: Int, resultSelector: @escaping ([SourceElement]) throws -> Result, downstream: ObserverNode<Result>) {
        state = .make(State(
            buffers: Array(repeating: FIFOBuffer(), count: count),
            isCompleted: Array(repeating: false, count: count)
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
        let claim = state.withLock { state -> ZipClaim in
            guard !state.isStopped else { return .none }
            if state.buffers[index].isEmpty {
                state.nonEmptyCount += 1
            }
            state.buffers[index].append(element)
            guard state.hasCombination else {
                // RxSwift's rule: an element no other source can ever match ends the sequence.
                guard state.completedCount + (state.isCompleted[index] ? 0 : 1) == state.buffers.count else {
                    return .none
                }
                state.isStopped = true
                state.terminal = .completed
                return .ended
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
        var terminal: PendingTerminal?
        var values: [SourceElement] = []
        let tookValues = state.withLock { state -> Bool in
            if state.hasCombination {
                values = take(&state)
                return true
            }
            defer { state.terminal = nil }
            terminal = state.terminal
            return false
        }
        if tookValues {
            return deliver(values) ? .delivered : .finished
        }
        if let terminal {
            deliver(terminal)
            return .finished
        }
        return .idle
    }

    func sourceCompleted(_ index: Int) {
        let ended = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            guard !state.isCompleted[index] else { return false }
            state.isCompleted[index] = true
            state.completedCount += 1
            guard state.completedCount == state.buffers.count else { return false }
            state.isStopped = true
            state.terminal = .completed
            return true
        }
        if ended {
            signal()
        }
    }

    func sourceFailed(_ error: Error) {
        let ended = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.isStopped = true
            state.terminal = .error(error)
            return true
        }
        if ended {
            signal()
        }
    }

    override func didDispose() {
        // The buffered elements are released after unlocking.
        _ = state.withLock { state -> [FIFOBuffer<SourceElement>] in
            state.isStopped = true
            state.terminal = nil
            state.nonEmptyCount = 0
            defer { state.buffers = [] }
            return state.buffers
        }
        super.didDispose()
    }
}
