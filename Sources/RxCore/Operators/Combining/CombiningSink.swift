/// Which of the two combining operators a sink is.
enum CombiningMode {
    /// `zip`: each source's elements queue up; a result takes the first of each.
    case zip
    /// `combineLatest`: each source keeps its latest element; a result copies the latest of each,
    /// whenever any source emits once all have.
    case combineLatest

    /// Whether a fixed-arity sink ends as soon as an element arrives that no result can ever use
    /// (every other source completed). RxSwift's `combineLatest` does; its fixed-arity `zip` waits
    /// until every source completed, which users' virtual-time tests see in the subscription
    /// intervals. (Both collection forms end early, as RxSwift's do.)
    var endsWhenAnElementCanNeverPair: Bool {
        self == .combineLatest
    }
}

extension FIFOBuffer {
    /// Records an element a source sent: queued behind the others for zip, replacing the latest
    /// for combineLatest.
    @inline(__always)
    mutating func record(_ element: Element, _ mode: CombiningMode) {
        switch mode {
        case .zip: append(element)
        case .combineLatest: replaceAll(with: element)
        }
    }

    /// This source's part of the next result: removed for zip, copied for combineLatest.
    @inline(__always)
    mutating func take(_ mode: CombiningMode) -> Element {
        switch mode {
        case .zip: removeFirst()
        case .combineLatest: peekFirst()
        }
    }
}

/// The state of one `zip` or `combineLatest` subscription, kept in its sink's `LockedState`: one
/// buffer per source, the combinations waiting for the drain loop, and the shared bookkeeping.
protocol CombiningState {
    var progress: CombiningProgress { get set }

    /// Drops every buffered element (replacing the buffers, so that a copy taken before still owns
    /// them and releases them after unlocking).
    mutating func dropBuffers()
}

/// The part of every `zip` and `combineLatest` sink that does not depend on its arity: the source
/// observers' terminal events, disposal, and subscribing the sources. The arity subclasses
/// (`Combine2Sink`…`Combine4Sink`, `CombineCollectionSink`) hold the hot path: an element takes
/// the lock once, is recorded and, if it completes a result and no one is delivering, the result's
/// values leave the critical section through stack slots typed by the subclass's own parameters
/// and are sent after unlocking (see `ValueSlot` and `DrainingSink`). In unspecialized generic
/// code that is what keeps a metadata look-up off every element: the one generic core tried first
/// moved tuples through an associated type and made `zip` three times slower.
class CombiningSink<State: CombiningState, Result>: DrainingSink<Never, Result>, SourceObserverParent,
    // @unchecked Sendable: the buffers and progress live in `state`; the rest is immutable.
    @unchecked Sendable {
    let mode: CombiningMode
    let state: LockedState<State>

    init(mode: CombiningMode, state: State, downstream: ObserverNode<Result>) {
        self.mode = mode
        self.state = .make(state)
        super.init(downstream: downstream)
    }

    final func sourceCompleted(_ index: Int) {
        if state.withLock({ $0.progress.sourceCompleted() }) {
            signal()
        }
    }

    final func sourceFailed(_ error: Error) {
        if state.withLock({ $0.progress.sourceFailed(error) }) {
            signal()
        }
    }

    override func didDispose() {
        // The buffered elements are released after unlocking.
        _ = state.withLock { state -> State in
            let buffered = state
            state.dropBuffers()
            state.progress.cancel()
            return buffered
        }
        super.didDispose()
    }
}
