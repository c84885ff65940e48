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
        sink.run()
        return sink
    }
}

/// The state machine of `catch(sequence:)`: subscribes the sources one after the other, moving on
/// when one fails.
///
/// Moving on is the trampoline of `ConcatSink`: the caller that finds no one advancing takes the
/// advancing role and subscribes sources in a loop; a source that fails while the loop is still inside
/// its `subscribe` only flags it (`advancePending`) and the loop goes round. Only the holder of the
/// advancing role touches the iterator, which it takes out of the state while it calls `next()`, so
/// that no lock is held while user code runs.
// @unchecked Sendable: mutable state lives in `state`.
final class CatchSequenceSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private struct State {
        /// The sources not yet tried; nil while the advancing loop holds it.
        var sources: AnyIterator<Observable<Element>>?
        /// The error of the source that failed last.
        var lastError: Error?
        /// The subscription of the running source, once its `subscribe` returned.
        var current: Disposable?
        /// Whether some caller is in the subscribe loop.
        var isAdvancing = false
        /// The running source failed while the loop was inside its `subscribe`.
        var advancePending = false
        var isDisposed = false
    }

    private let state: LockedState<State>

    init(sources: AnyIterator<Observable<Element>>, downstream: ObserverNode<Element>) {
        state = .make(State(sources: sources))
        super.init(downstream: downstream)
    }

    func run() {
        state.withLock { $0.isAdvancing = true }
        advance()
    }

    override func onNext(_ element: Element) {
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        var previous: Disposable?
        var previousError: Error?
        let startsLoop = state.withLock { state -> Bool in
            guard !state.isDisposed else { return false }
            previousError = state.lastError
            state.lastError = error
            previous = state.current
            state.current = nil
            if state.isAdvancing {
                state.advancePending = true
                return false
            }
            state.isAdvancing = true
            return true
        }
        previous?.dispose()
        // Released here, after the lock: its deinit may run user code.
        _ = previousError
        if startsLoop {
            advance()
        }
    }

    override func onCompleted() {
        forwardCompleted()
    }

    /// The subscribe loop; the caller holds the advancing role.
    private func advance() {
        while true {
            guard let sources = state.withLock({ state -> AnyIterator<Observable<Element>>? in
                guard !state.isDisposed else { return nil }
                state.advancePending = false
                defer { state.sources = nil }
                return state.sources
            }) else { return }
            // User code (the sequence's iterator): called without the lock.
            guard let source = sources.next() else {
                let lastError = state.withLock { state -> Error? in
                    if !state.isDisposed { state.sources = sources }
                    return state.lastError
                }
                if let lastError {
                    forwardError(lastError)
                } else {
                    forwardCompleted()
                }
                return
            }
            state.withLock { state in
                // Disposed meanwhile: the iterator is released with this frame, after the lock.
                if !state.isDisposed { state.sources = sources }
            }
            let subscription = source.subscribe(self)
            var disposeNow = false
            let again = state.withLock { state -> Bool in
                if state.isDisposed || state.advancePending {
                    // Disposed meanwhile, or the source already failed: nothing to keep.
                    disposeNow = true
                    return !state.isDisposed
                }
                state.current = subscription
                state.isAdvancing = false
                return false
            }
            if disposeNow {
                subscription.dispose()
            }
            if !again {
                return
            }
        }
    }

    override func didDispose() {
        let (current, sources) = state.withLock { state -> (Disposable?, AnyIterator<Observable<Element>>?) in
            state.isDisposed = true
            defer {
                state.current = nil
                state.sources = nil
            }
            return (state.current, state.sources)
        }
        current?.dispose()
        // Released here, after the lock: the iterator's deinit may run user code.
        _ = sources
        super.didDispose()
    }
}
