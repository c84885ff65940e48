extension ObservableType {
    /// Combines the latest element of every source whenever any of them emits, once each has
    /// emitted; the elements are passed to `resultSelector` in the order of `sources`.
    ///
    /// - Parameters:
    ///   - sources: The sources; for an empty collection the result is `resultSelector([])`, then
    ///     completion (as in RxSwift).
    ///   - resultSelector: Builds a result from the latest elements; an error it throws terminates
    ///     the sequence with that error.
    /// - Returns: A sequence that completes when every source has completed (or when an element
    ///   arrives that no combination can include, every other source having completed), and fails,
    ///   disposing every source, as soon as one of them fails.
    /// - Note: The sources may emit concurrently; the result's events are serialized and arrive on
    ///   the thread of one of the sources, as do the calls to `resultSelector`.
    public static func combineLatest<Sources: Collection>(
        _ sources: Sources,
        resultSelector: @escaping @Sendable ([Sources.Element.Element]) throws -> Element
    ) -> Observable<Element> where Sources.Element: ObservableConvertibleType {
        CombineCollectionObservable(
            .combineLatest, sources: sources.map { $0.asObservable() }, resultSelector: resultSelector
        )
    }

    /// Combines the latest element of every source into an array, in the order of `sources`.
    ///
    /// - Parameter sources: The sources; an empty collection gives `[]`, then completion.
    /// - Returns: See `combineLatest(_:resultSelector:)`.
    /// - Note: The sources may emit concurrently; the result's events are serialized.
    public static func combineLatest<Sources: Collection>(
        _ sources: Sources
    ) -> Observable<[Element]> where Sources.Element: ObservableConvertibleType, Sources.Element.Element == Element {
        CombineCollectionObservable(.combineLatest, sources: sources.map { $0.asObservable() }) { $0 }
    }
}

