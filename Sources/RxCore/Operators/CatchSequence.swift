extension ObservableType {
    /// Subscribes to the first sequence of `sequence` and, each time the current one fails, moves on
    /// to the next; the error of the last one is forwarded.
    ///
    /// The sequences' elements are forwarded as they come; the result completes when the current
    /// sequence completes. An empty `sequence` gives a sequence that completes at once. Each failed
    /// sequence is disposed before the next one is subscribed.
    ///
    /// - Parameter sequence: The sequences to try in order; iterated lazily, once per subscription
    ///   and only as far as errors take it, so it may be infinite.
    /// - Returns: The elements of consecutive sequences until one completes, or the last one fails.
    /// - Note: Sequences that fail synchronously are subscribed in a loop, not by recursion, so any
    ///   number of them runs in constant stack depth. Events arrive on the thread of the sequence
    ///   that sends them; the next sequence is subscribed (and `sequence` iterated) on the thread of
    ///   the error. Thread-safe.
    public static func `catch`<Sources: Sequence>(sequence: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        CatchSequenceObservable(sources: AnySequence(sequence))
    }
}

// @unchecked Sendable: immutable after init; each subscription makes its own iterator.
final class CatchSequenceObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let sources: AnySequence<Observable<Element>>

    init(sources: AnySequence<Observable<Element>>) {
        self.sources = sources
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = CatchSequenceSink(sources: sources.makeIterator(), downstream: observer)
        sink.resubscribe()
        return sink
    }
}

/// The state machine of `catch(sequence:)`: subscribes the sources one after the other, moving on
/// when one fails, on `ResubscribingSink`'s loop (constant stack depth for any number of sources
/// that fail synchronously). Only the owner of that loop iterates `sources`, without the lock, since
/// `next()` is user code.
// @unchecked Sendable: mutable state lives in `state`; the iterator is advanced only by the loop.
final class CatchSequenceSink<Element>: ResubscribingSink<Element>, @unchecked Sendable {
    private struct State {
        /// The sources not yet tried.
        var sources: AnyIterator<Observable<Element>>?
        /// The error of the source that failed last.
        var lastError: Error?
    }

    private let state: LockedState<State>

    init(sources: AnyIterator<Observable<Element>>, downstream: ObserverNode<Element>) {
        state = .make(State(sources: sources))
        super.init(source: nil, downstream: downstream)
    }

    override func nextSource() -> Observable<Element>? {
        state.withLock { $0.sources }?.next()
    }

    override func sourcesExhausted() {
        if let lastError = state.withLock({ $0.lastError }) {
            forwardError(lastError)
        } else {
            forwardCompleted()
        }
    }

    override func attemptFailed(_ error: Error) {
        let previousError = state.withLock { state -> Error? in
            defer { state.lastError = error }
            return state.lastError
        }
        // Released here, after the lock: its deinit may run user code.
        _ = previousError
        resubscribe()
    }

    override func didDispose() {
        let (sources, lastError) = state.withLock { state -> (AnyIterator<Observable<Element>>?, Error?) in
            defer {
                state.sources = nil
                state.lastError = nil
            }
            return (state.sources, state.lastError)
        }
        // Released here, after the lock: the iterator's deinit may run user code.
        _ = (sources, lastError)
        super.didDispose()
    }
}
