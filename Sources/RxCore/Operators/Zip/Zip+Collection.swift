extension ObservableType {
    /// Combines any number of sources element by element: the nth element of every source, passed
    /// to `resultSelector` in the order of `sources`, gives the nth element of the result.
    ///
    /// - Parameters:
    ///   - sources: The sources; an empty collection gives a sequence that completes at once.
    ///   - resultSelector: Builds a result from one element of each source; an error it throws
    ///     terminates the sequence with that error.
    /// - Returns: A sequence that completes when every source has completed, or when an element
    ///   arrives that can never be paired (every other source completed), and fails, disposing every
    ///   source, as soon as one of them fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized and arrive on
    ///   the thread of one of the sources, as do the calls to `resultSelector`.
    public static func zip<Sources: Collection>(
        _ sources: Sources,
        resultSelector: @escaping @Sendable ([Sources.Element.Element]) throws -> Element
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

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class ZipCollectionObservable<SourceElement, Result>: Observable<Result>, @unchecked Sendable {
    private let sources: [Observable<SourceElement>]
    private let resultSelector: @Sendable ([SourceElement]) throws -> Result

    init(sources: [Observable<SourceElement>], resultSelector: @escaping @Sendable ([SourceElement]) throws -> Result) {
        self.sources = sources
        self.resultSelector = resultSelector
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        guard !sources.isEmpty else {
            observer.onCompleted()
            return NopDisposable.shared
        }
        let sink = ZipCollectionSink(count: sources.count, resultSelector: resultSelector, downstream: observer)
        sink.run(sources)
        return sink
    }
}
