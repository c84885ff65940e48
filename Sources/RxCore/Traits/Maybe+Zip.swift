extension Maybe {
    /// Runs two `Maybe`s at once and combines their elements when both have succeeded.
    ///
    /// - Parameters:
    ///   - source1: The first `Maybe`.
    ///   - source2: The second `Maybe`.
    ///   - resultSelector: Builds the result from both elements; an error it throws becomes the
    ///     failure.
    /// - Returns: A `Maybe` that succeeds once both have, completes empty when one completed empty
    ///   and the other has finished too (RxSwift's zip rule), and fails as soon as either fails;
    ///   the other is then disposed.
    /// - Note: The sources may finish on different threads; the outcome arrives on the thread of
    ///   the one that decided it. Thread-safe.
    public static func zip<E1, E2>(
        _ source1: Maybe<E1>, _ source2: Maybe<E2>,
        resultSelector: @escaping @Sendable (E1, E2) throws -> Element
    ) -> Maybe<Element> {
        Maybe(unchecked: Combine2Observable(.zip, source1.source, source2.source, resultSelector: resultSelector))
    }

    /// Runs three `Maybe`s at once and combines their elements when all have succeeded.
    ///
    /// - Parameters:
    ///   - source1: The first `Maybe`.
    ///   - source2: The second `Maybe`.
    ///   - source3: The third `Maybe`.
    ///   - resultSelector: Builds the result; an error it throws becomes the failure.
    /// - Returns: A `Maybe` that succeeds once all have, completes empty when one completed empty
    ///   and the others have finished too (RxSwift's zip rule), and fails as soon as one fails; the
    ///   others are then disposed.
    /// - Note: The outcome arrives on the thread of the source that decided it. Thread-safe.
    public static func zip<E1, E2, E3>(
        _ source1: Maybe<E1>, _ source2: Maybe<E2>, _ source3: Maybe<E3>,
        resultSelector: @escaping @Sendable (E1, E2, E3) throws -> Element
    ) -> Maybe<Element> {
        Maybe(unchecked: Combine3Observable(
            .zip, source1.source, source2.source, source3.source, resultSelector: resultSelector
        ))
    }

    /// Runs every `Maybe` of a collection at once and combines their elements, in the order of the
    /// collection, with `resultSelector`.
    ///
    /// - Parameters:
    ///   - sources: The `Maybe`s; an empty collection succeeds at once with `resultSelector([])`.
    ///   - resultSelector: Builds the result; an error it throws becomes the failure.
    /// - Returns: A `Maybe` that succeeds once all have, completes empty when one completed empty
    ///   and the others have finished too (RxSwift's zip rule), and fails as soon as one fails; the
    ///   others are then disposed.
    /// - Note: The outcome arrives on the thread of the source that decided it. Thread-safe.
    public static func zip<Sources: Collection, SourceElement>(
        _ sources: Sources, resultSelector: @escaping @Sendable ([SourceElement]) throws -> Element
    ) -> Maybe<Element> where Sources.Element == Maybe<SourceElement> {
        guard !sources.isEmpty else {
            return Maybe(unchecked: Observable<[SourceElement]>.just([]).map(resultSelector))
        }
        return Maybe(unchecked: CombineCollectionObservable(
            .zip, sources: sources.map(\.source), resultSelector: resultSelector
        ))
    }

    /// Runs every `Maybe` of a collection at once and succeeds with their elements, in the order of
    /// the collection.
    ///
    /// - Parameter sources: The `Maybe`s; an empty collection succeeds at once with `[]`.
    /// - Returns: A `Maybe` that succeeds once all have, completes empty when one completed empty
    ///   and the others have finished too (RxSwift's zip rule), and fails as soon as one fails; the
    ///   others are then disposed.
    /// - Note: The outcome arrives on the thread of the source that decided it. Thread-safe.
    public static func zip<Sources: Collection>(_ sources: Sources) -> Maybe<[Element]>
    where Sources.Element == Maybe<Element> {
        Maybe<[Element]>.zip(sources) { $0 }
    }
}

extension Maybe where Element == Any {
    /// Runs two `Maybe`s at once and succeeds with both elements as a tuple.
    ///
    /// - Parameters:
    ///   - source1: The first `Maybe`.
    ///   - source2: The second `Maybe`.
    /// - Returns: A `Maybe` that succeeds once both have, completes empty when one completed empty
    ///   and the other has finished too (RxSwift's zip rule), and fails as soon as either fails;
    ///   the other is then disposed.
    /// - Note: The outcome arrives on the thread of the source that decided it. Thread-safe.
    public static func zip<E1, E2>(_ source1: Maybe<E1>, _ source2: Maybe<E2>) -> Maybe<(E1, E2)> {
        Maybe<(E1, E2)>.zip(source1, source2) { ($0, $1) }
    }

    /// Runs three `Maybe`s at once and succeeds with their elements as a tuple.
    ///
    /// - Parameters:
    ///   - source1: The first `Maybe`.
    ///   - source2: The second `Maybe`.
    ///   - source3: The third `Maybe`.
    /// - Returns: A `Maybe` that succeeds once all have, completes empty when one completed empty
    ///   and the others have finished too (RxSwift's zip rule), and fails as soon as one fails; the
    ///   others are then disposed.
    /// - Note: The outcome arrives on the thread of the source that decided it. Thread-safe.
    public static func zip<E1, E2, E3>(
        _ source1: Maybe<E1>, _ source2: Maybe<E2>, _ source3: Maybe<E3>
    ) -> Maybe<(E1, E2, E3)> {
        Maybe<(E1, E2, E3)>.zip(source1, source2, source3) { ($0, $1, $2) }
    }
}
