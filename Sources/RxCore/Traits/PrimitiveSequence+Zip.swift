extension PrimitiveSequence where Trait: ElementTrait {
    /// Runs every sequence of a collection at once and combines their elements, in the order of the
    /// collection, with `resultSelector`.
    ///
    /// - Parameters:
    ///   - sources: The `Single`s or `Maybe`s; an empty collection succeeds at once with
    ///     `resultSelector([])`.
    ///   - resultSelector: Builds the result; an error it throws becomes the failure.
    /// - Returns: A sequence that succeeds once all have, and fails as soon as one fails, disposing
    ///   (cancelling) the others. A `Maybe` completes empty when one completed empty and the others
    ///   have finished too (RxSwift's zip rule).
    /// - Note: The outcome arrives on the thread of the source that decided it. Thread-safe.
    public static func zip<Sources: Collection, SourceElement>(
        _ sources: Sources, resultSelector: @escaping @Sendable ([SourceElement]) throws -> Element
    ) -> PrimitiveSequence<Trait, Element> where Sources.Element == PrimitiveSequence<Trait, SourceElement> {
        guard !sources.isEmpty else {
            return PrimitiveSequence(unchecked: Observable<[SourceElement]>.just([]).map(resultSelector))
        }
        return PrimitiveSequence(unchecked: CombineCollectionObservable(
            .zip, sources: sources.map(\.source), resultSelector: resultSelector
        ))
    }

    /// Runs every sequence of a collection at once and succeeds with their elements, in the order
    /// of the collection; see `zip(_:resultSelector:)`.
    ///
    /// - Parameter sources: The `Single`s or `Maybe`s; an empty collection succeeds at once with `[]`.
    /// - Returns: A sequence of the elements of all, in order.
    public static func zip<Sources: Collection>(_ sources: Sources) -> PrimitiveSequence<Trait, [Element]>
    where Sources.Element == PrimitiveSequence<Trait, Element> {
        PrimitiveSequence<Trait, [Element]>.zip(sources) { $0 }
    }
}
