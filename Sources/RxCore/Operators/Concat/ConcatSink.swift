/// The state machine of `concat`: subscribes the sources one after the other, each when the
/// previous one has completed, on `ResubscribingSink`'s loop (so a hundred thousand synchronous
/// sources take constant stack depth, and a source that completes later, on another thread, moves
/// on there). Downstream is never called concurrently: the next source is subscribed only after the
/// previous one has sent its last event.
///
/// A source that is itself a `concat` is not subscribed: its sources go on top of a stack of
/// iterators and are taken from there first (RxSwift's tail recursion). So `a.concat(b).concat(c)…`
/// built in a loop, or a lazy collection whose last element is the next level's `concat`, runs
/// through this one sink at constant stack depth instead of one sink per level.
// @unchecked Sendable: the iterators live in `state` and are advanced only by the owner of the
// loop; the rest is ResubscribingSink's.
final class ConcatSink<Element>: ResubscribingSink<Element>, @unchecked Sendable {
    /// One level's sources not yet subscribed.
    struct Sources {
        let iterator: AnyIterator<Observable<Element>>
        /// How many are left, when known: a level whose last source is taken is dropped at once,
        /// so nesting in last position (tail recursion) does not pile up levels.
        var remaining: Int?
    }

    /// The levels, innermost last.
    private let state: LockedState<[Sources]>

    init(sources: Sources, downstream: ObserverNode<Element>) {
        state = .make([sources])
        super.init(source: nil, downstream: downstream)
    }

    override func nextSource() -> Observable<Element>? {
        while true {
            guard var level = state.withLock({ $0.popLast() }) else { return nil }
            // User code (a lazy collection's element): called without the lock.
            guard let source = level.iterator.next() else { continue }
            level.remaining = level.remaining.map { $0 - 1 }
            let nested = (source as? ConcatObservable<Element>)?.makeSources()
            state.withLock { levels in
                guard !isDisposed else { return }
                if level.remaining != 0 { levels.append(level) }
                if let nested { levels.append(nested) }
            }
            if nested == nil {
                return source
            }
        }
    }

    override func attemptCompleted() {
        resubscribe()
    }

    override func didDispose() {
        // Released after the lock: a lazy collection's iterator may hold user code.
        let levels = state.withLock { levels -> [Sources] in
            defer { levels = [] }
            return levels
        }
        _ = levels
        super.didDispose()
    }
}
