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
        CombineCollectionObservable(.zip, sources: sources.map { $0.asObservable() }, resultSelector: resultSelector)
    }

    /// Combines any number of sources element by element into arrays, in the order of `sources`.
    ///
    /// - Parameter sources: The sources; an empty collection gives a sequence that completes at once.
    /// - Returns: See `zip(_:resultSelector:)`.
    /// - Note: The sources may emit concurrently; the result's events are serialized.
    public static func zip<Sources: Collection>(
        _ sources: Sources
    ) -> Observable<[Element]> where Sources.Element: ObservableConvertibleType, Sources.Element.Element == Element {
        CombineCollectionObservable(.zip, sources: sources.map { $0.asObservable() }) { $0 }
    }
}

