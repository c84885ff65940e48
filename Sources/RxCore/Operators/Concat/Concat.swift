extension ObservableType {
    /// Concatenates sequences: each is subscribed when the previous one has completed.
    ///
    /// - Parameter sources: The sequences, in order; none gives a sequence that completes at once.
    /// - Returns: A sequence that completes after the last source, and fails as soon as a source
    ///   fails (the later ones are then never subscribed).
    /// - Note: Sources that complete synchronously are subscribed in a loop, not by recursion, so
    ///   any number of them runs in constant stack depth. Events arrive on the thread of the source
    ///   that sends them; they are serialized because one source runs at a time.
    public static func concat(_ sources: Observable<Element>...) -> Observable<Element> {
        ConcatObservable(sources: sources)
    }

    /// Concatenates an array of sequences: each is subscribed when the previous one has completed.
    ///
    /// - Parameter sources: The sequences, in order; an empty array completes at once.
    /// - Returns: A sequence that completes after the last source, and fails as soon as a source
    ///   fails (the later ones are then never subscribed).
    /// - Note: Synchronous sources run in constant stack depth. Events arrive on the thread of the
    ///   source that sends them, serialized since one source runs at a time.
    public static func concat(_ sources: [Observable<Element>]) -> Observable<Element> {
        ConcatObservable(sources: sources)
    }

    /// Concatenates a collection of sequences: each is subscribed when the previous one has
    /// completed.
    ///
    /// - Parameter sources: The sequences, in order; an empty collection completes at once.
    ///   Iterated lazily, as in RxSwift: once per subscription, and only as far as completions take
    ///   it (a lazy collection's next sequence is made when the previous one completes, on that
    ///   thread).
    /// - Returns: A sequence that completes after the last source, and fails as soon as a source
    ///   fails (the later ones are then never subscribed).
    /// - Note: Synchronous sources run in constant stack depth, and so do concats nested in one
    ///   another (a source that is itself a `concat` lends its sources instead of being subscribed).
    ///   Events arrive on the thread of the source that sends them, serialized since one source runs
    ///   at a time.
    public static func concat<Sources: Collection>(_ sources: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        ConcatObservable(sources: AnySequence(sources), count: sources.count)
    }

    /// Concatenates a sequence of sequences, which may be infinite: each is subscribed when the
    /// previous one has completed.
    ///
    /// - Parameter sources: The sequences, in order; iterated lazily, once per subscription and only
    ///   as far as completions take it.
    /// - Returns: A sequence that completes after the last source (never, for an infinite
    ///   `sources`), and fails as soon as a source fails.
    /// - Note: As the collection form: constant stack depth, events on the thread of the source
    ///   that sends them, the next source made on the thread where the previous one completed.
    public static func concat<Sources: Sequence>(_ sources: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        ConcatObservable(sources: AnySequence(sources), count: nil)
    }

    /// Continues with `second` once this sequence has completed.
    ///
    /// - Parameter second: Subscribed when this sequence completes.
    /// - Returns: A sequence that completes after `second`, and fails as soon as either fails.
    /// - Note: Events arrive on the thread of the sequence that sends them.
    public func concat<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Element>
    where Source.Element == Element {
        ConcatObservable(sources: [asObservable(), second.asObservable()])
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; each subscription makes its own iterator of `sources` (the caller's
// collection, iterated lazily as RxSwift does, like `catch(sequence:)`'s).
final class ConcatObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let sources: AnySequence<Observable<Element>>
    /// How many sources there are, when known.
    private let count: Int?

    init(sources: [Observable<Element>]) {
        self.sources = AnySequence(sources)
        self.count = sources.count
    }

    init(sources: AnySequence<Observable<Element>>, count: Int?) {
        self.sources = sources
        self.count = count
    }

    /// A fresh iterator over the sources, for one subscription (or for a concat this one is nested in).
    func makeSources() -> ConcatSink<Element>.Sources {
        ConcatSink.Sources(iterator: sources.makeIterator(), remaining: count)
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = ConcatSink(sources: makeSources(), downstream: observer)
        sink.resubscribe()
        return sink
    }
}
