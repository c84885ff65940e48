/// The state of a `zip` or `combineLatest` over a collection of sources of one element type.
struct CombiningCollectionState<Element>: CombiningState {
    var buffers: [FIFOBuffer<Element>]
    /// How many buffers hold an element.
    var nonEmptyCount = 0
    /// combineLatest only: combinations formed while another thread was delivering.
    var queue = FIFOBuffer<[Element]>()
    var progress: CombiningProgress

    init(count: Int) {
        buffers = Array(repeating: FIFOBuffer(), count: count)
        progress = CombiningProgress(arity: count)
    }

    var isReady: Bool {
        !buffers.isEmpty && nonEmptyCount == buffers.count
    }

    mutating func record(_ element: Element, at index: Int, _ mode: CombiningMode) {
        if buffers[index].isEmpty {
            nonEmptyCount += 1
        }
        buffers[index].record(element, mode)
    }

    /// The values of the next result: removed (zip) or copied (combineLatest).
    mutating func take(_ mode: CombiningMode) -> [Element] {
        var values: [Element] = []
        values.reserveCapacity(buffers.count)
        for index in buffers.indices {
            values.append(buffers[index].take(mode))
            if buffers[index].isEmpty {
                nonEmptyCount -= 1
            }
        }
        return values
    }

    mutating func dropBuffers() {
        buffers = []
        nonEmptyCount = 0
        queue = FIFOBuffer()
    }
}

/// `zip` or `combineLatest` of a collection of sources: results are arrays in the collection's
/// order. Not on a hot path a benchmark measures, so values leave the lock as an array.
final class CombineCollectionSink<SourceElement, Result>:
    // @unchecked Sendable: the buffers live in `state`; `resultSelector` is immutable.
    CombiningSink<CombiningCollectionState<SourceElement>, Result>, @unchecked Sendable {
    private let resultSelector: @Sendable ([SourceElement]) throws -> Result

    init(
        mode: CombiningMode, count: Int,
        resultSelector: @escaping @Sendable ([SourceElement]) throws -> Result,
        downstream: ObserverNode<Result>
    ) {
        self.resultSelector = resultSelector
        super.init(mode: mode, state: CombiningCollectionState(count: count), downstream: downstream)
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
            state.record(element, at: index, mode)
            guard state.isReady else {
                return state.progress.elementFoundNoPartner() ? .ended : .none
            }
            if drainLoop.signal() {
                values = state.take(mode)
                return .tuple
            }
            if mode == .combineLatest {
                state.queue.append(state.take(mode))
            }
            return .none
        }
        switch claim {
        case .tuple: if deliver(values) { releaseEmission() }
        case .ended: signal()
        case .none: break
        }
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
        var terminal: Termination?
        var values: [SourceElement] = []
        let tookValues = state.withLock { state -> Bool in
            if !state.queue.isEmpty {
                values = state.queue.removeFirst()
                return true
            }
            if mode == .zip && state.isReady {
                values = state.take(mode)
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
}
