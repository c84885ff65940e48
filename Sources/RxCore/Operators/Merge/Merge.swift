extension ObservableType {
    /// Merges the elements of several sequences into one, as they arrive.
    ///
    /// - Parameter sources: The sequences, all subscribed at once; none gives a sequence that
    ///   completes at once.
    /// - Returns: A sequence that completes when every source has completed, and fails, disposing
    ///   the others, as soon as one fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized (never
    ///   concurrent, never re-entrant) and arrive on the thread of one of the sources. Each source's
    ///   elements keep their order.
    public static func merge(_ sources: Observable<Element>...) -> Observable<Element> {
        MergeArrayObservable(sources: sources)
    }

    /// Merges the elements of an array of sequences into one, as they arrive.
    ///
    /// - Parameter sources: The sequences, all subscribed at once; an empty array gives a sequence
    ///   that completes at once.
    /// - Returns: A sequence that completes when every source has completed, and fails, disposing
    ///   the others, as soon as one fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized (never
    ///   concurrent, never re-entrant) and arrive on the thread of one of the sources. Each source's
    ///   elements keep their order.
    public static func merge(_ sources: [Observable<Element>]) -> Observable<Element> {
        MergeArrayObservable(sources: sources)
    }

    /// Merges the elements of a collection of sequences into one, as they arrive.
    ///
    /// - Parameter sources: The sequences, all subscribed at once; an empty collection gives a
    ///   sequence that completes at once.
    /// - Returns: A sequence that completes when every source has completed, and fails, disposing
    ///   the others, as soon as one fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized (never
    ///   concurrent, never re-entrant) and arrive on the thread of one of the sources. Each source's
    ///   elements keep their order.
    public static func merge<Sources: Collection>(_ sources: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        MergeArrayObservable(sources: Array(sources))
    }
}

extension ObservableType where Element: ObservableConvertibleType & SendableMetatype {
    /// Merges the inner sequences this sequence emits: each is subscribed as it arrives.
    ///
    /// - Returns: A sequence that completes when this sequence and every inner one have completed,
    ///   and fails, disposing everything, as soon as any of them fails.
    /// - Note: Inner sequences may emit concurrently; the result's events are serialized.
    public func merge() -> Observable<Element.Element> {
        FlatMapObservable(source: asObservable(), maxConcurrent: .max, dropsWhenBusy: false) { $0.asObservable() }
    }

    /// Merges the inner sequences this sequence emits, with at most `maxConcurrent` subscribed at
    /// once; the others wait, in order, for a running one to complete.
    ///
    /// - Parameter maxConcurrent: The most inner sequences subscribed at a time; 1 concatenates them.
    /// - Returns: See `merge()`; fails with `RxError.argumentOutOfRange` if `maxConcurrent` < 1.
    /// - Note: Inner sequences may emit concurrently; the result's events are serialized.
    public func merge(maxConcurrent: Int) -> Observable<Element.Element> {
        guard maxConcurrent > 0 else { return Observable.error(RxError.argumentOutOfRange) }
        return FlatMapObservable(source: asObservable(), maxConcurrent: maxConcurrent, dropsWhenBusy: false) {
            $0.asObservable()
        }
    }

    /// Concatenates the inner sequences this sequence emits: each is subscribed when the previous
    /// one has completed. The same as `merge(maxConcurrent: 1)`.
    ///
    /// - Returns: A sequence that completes when this sequence and every inner one have completed,
    ///   and fails, disposing everything, as soon as any of them fails.
    /// - Note: Inner sequences that complete synchronously are subscribed in a loop, without growing
    ///   the stack. Events arrive on the thread of the inner sequence that sends them.
    public func concat() -> Observable<Element.Element> {
        merge(maxConcurrent: 1)
    }
}

/// `merge` over a fixed list of sources.
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class MergeArrayObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let sources: [Observable<Element>]

    init(sources: [Observable<Element>]) {
        self.sources = sources
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = MergeSink<Observable<Element>, Element>(
            selector: { $0 }, maxConcurrent: .max, dropsWhenBusy: false, downstream: observer
        )
        sink.run(sources)
        return sink
    }
}

/// `flatMap` and its relatives over an outer sequence; see `MergeSink`.
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class FlatMapObservable<SourceElement, Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<SourceElement>
    private let selector: @Sendable (SourceElement) throws -> Observable<Element>
    private let maxConcurrent: Int
    private let dropsWhenBusy: Bool

    init(
        source: Observable<SourceElement>, maxConcurrent: Int, dropsWhenBusy: Bool,
        selector: @escaping @Sendable (SourceElement) throws -> Observable<Element>
    ) {
        self.source = source
        self.selector = selector
        self.maxConcurrent = maxConcurrent
        self.dropsWhenBusy = dropsWhenBusy
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = MergeSink(
            selector: selector, maxConcurrent: maxConcurrent, dropsWhenBusy: dropsWhenBusy, downstream: observer
        )
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}
