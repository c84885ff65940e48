/// The state machine of `combineLatest` over a collection; it works as `CombineLatest2Sink` does,
/// with one latest value and one completion flag per source.
// @unchecked Sendable: the latest values, queue and flags live in `state`; the rest is immutable.
final class CombineLatestCollectionSink<SourceElement, Result>: DrainingSink<Never, Result>, @unchecked Sendable, SourceObserverParent {
    private struct State {
        /// Each source's latest value (a buffer of zero or one element).
        var latest: [FIFOBuffer<SourceElement>]
        /// How many sources have a latest value: a combination exists when all do.
        var valueCount = 0
        var queue = FIFOBuffer<[SourceElement]>()
        var progress: CombiningProgress

        /// Whether every source has a value (false once disposed, when there are no sources).
        var hasCombination: Bool {
            !latest.isEmpty && valueCount == latest.count
        }
    }

    private let state: LockedState<State>
    private let resultSelector: @Sendable ([SourceElement]) throws -> Result

    init(count: Int, resultSelector: @escaping @Sendable ([SourceElement]) throws -> Result, downstream: ObserverNode<Result>) {
        state = .make(State(
            latest: Array(repeating: FIFOBuffer(), count: count),
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
            if state.latest[index].isEmpty {
                state.valueCount += 1
            }
            state.latest[index].replaceAll(with: element)
            guard state.hasCombination else {
                return state.progress.elementFoundNoPartner() ? .ended : .none
            }
            let combination = state.latest.map { $0.peekFirst() }
            if pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0 {
                values = combination
                return .tuple
            }
            state.queue.append(combination)
            return .none
        }
        switch claim {
        case .tuple: if deliver(values) { releaseEmission() }
        case .ended: signal()
        case .none: break
        }
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
            if !state.queue.isEmpty {
                values = state.queue.removeFirst()
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
        // The latest and queued values are released after unlocking.
        _ = state.withLock { state -> State in
            defer {
                state = State(latest: [], progress: CombiningProgress(arity: 0))
                state.progress.cancel()
            }
            return state
        }
        super.didDispose()
    }
}
