extension ObservableType {
    /// Combines any number of sources element by element: the nth element of every source, passed
    /// to `resultSelector` in the order of `sources`, gives the nth element of the result.
    ///
    /// - Parameters:
    ///   - sources: The sources; an empty collection gives a sequence that completes at once.
    ///   - resultSelector: Builds a result from one element of each source; an error it throws
    ///     terminates the sequence with that error.
    /// - Returns: A sequence that completes as soon as no further combination can be formed (a source
    ///   has completed and all its elements were used), and fails, disposing every source, as soon as
    ///   one of them fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized and arrive on
    ///   the thread of one of the sources, as do the calls to `resultSelector`.
    public static func zip<Sources: Collection>(
        _ sources: Sources,
        resultSelector: @escaping ([Sources.Element.Element]) throws -> Element
    ) -> Observable<Element> where Sources.Element: ObservableConvertibleType {
        ZipCollectionObservable(sources: sources.map { $0.asObservable() }, resultSelector: resultSelector)
    }

    /// Combines any number of sources element by element into arrays, in the order of `sources`.
    ///
    /// - Parameter sources: The sources; an empty collection gives a sequence that completes at once.
    /// - Returns: See `zip(_:resultSelector:)`.
    /// - Note: The sources may emit concurrently; the result's events are serialized.
    public static func zip<Sources: Collection>(
        _ sources: Sources
    ) -> Observable<[Element]> where Sources.Element: ObservableConvertibleType, Sources.Element.Element == Element {
        ZipCollectionObservable(sources: sources.map { $0.asObservable() }) { $0 }
    }
}

// @unchecked Sendable: immutable after init.
final class ZipCollectionObservable<SourceElement, Result>: Observable<Result>, @unchecked Sendable {
    private let sources: [Observable<SourceElement>]
    private let resultSelector: ([SourceElement]) throws -> Result

    init(sources: [Observable<SourceElement>], resultSelector: @escaping ([SourceElement]) throws -> Result) {
        self.sources = sources
        self.resultSelector = resultSelector
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> Disposable {
        guard !sources.isEmpty else {
            observer.onCompleted()
            return Disposables.create()
        }
        let sink = ZipCollectionSink(count: sources.count, resultSelector: resultSelector, downstream: observer)
        sink.run(sources)
        return sink
    }
}

/// The state machine of `zip` over a collection; it works as `Zip2Sink` does, with one buffer and
/// one completion flag per source.
// @unchecked Sendable: the buffers and flags live in `state`; the rest is immutable.
final class ZipCollectionSink<SourceElement, Result>: DrainingSink<Never, Result>, SourceObserverParent,
    @unchecked Sendable {
    private struct State {
        var buffers: [FIFOBuffer<SourceElement>]
        var isCompleted: [Bool]
        /// How many buffers hold at least one element: a combination is ready when all do.
        var nonEmptyCount = 0
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
        let values = state.withLock { state -> [SourceElement]? in
            guard !state.isStopped else { return nil }
            if state.buffers[index].isEmpty {
                state.nonEmptyCount += 1
            }
            state.buffers[index].append(element)
            guard state.hasCombination,
                  pendingSignals.add(1, ordering: .acquiringAndReleasing).oldValue == 0
            else { return nil }
            return take(&state)
        }
        if let values, deliver(values) {
            releaseEmission()
        }
    }

    /// Under the lock: removes the next combination, deciding and signalling completion if that
    /// exhausts a completed source.
    private func take(_ state: inout State) -> [SourceElement] {
        var values: [SourceElement] = []
        values.reserveCapacity(state.buffers.count)
        var exhausted = false
        for index in state.buffers.indices {
            values.append(state.buffers[index].removeFirst())
            if state.buffers[index].isEmpty {
                state.nonEmptyCount -= 1
                exhausted = exhausted || state.isCompleted[index]
            }
        }
        if exhausted && !state.isStopped {
            state.isStopped = true
            state.terminal = .completed
            pendingSignals.add(1, ordering: .acquiringAndReleasing)
        }
        return values
    }

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
        let values = state.withLock { state -> [SourceElement]? in
            if state.hasCombination {
                return take(&state)
            }
            defer { state.terminal = nil }
            terminal = state.terminal
            return nil
        }
        if let values {
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
            state.isCompleted[index] = true
            guard state.buffers[index].isEmpty else { return false }
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
