extension Single {
    /// Runs two `Single`s at once and combines their elements when both have succeeded.
    ///
    /// - Parameters:
    ///   - source1: The first `Single`.
    ///   - source2: The second `Single`.
    ///   - resultSelector: Builds the result from both elements; an error it throws becomes the
    ///     failure.
    /// - Returns: A `Single` that succeeds once both have, and fails as soon as either fails,
    ///   disposing (cancelling) the other.
    /// - Note: The sources may finish on different threads; the result arrives on the thread of the
    ///   one that finished last (or failed first). Thread-safe.
    public static func zip<E1, E2>(
        _ source1: Single<E1>, _ source2: Single<E2>,
        resultSelector: @escaping @Sendable (E1, E2) throws -> Element
    ) -> Single<Element> {
        Single(unchecked: Combine2Observable(.zip, source1.source, source2.source, resultSelector: resultSelector))
    }

    /// Runs three `Single`s at once and combines their elements when all have succeeded.
    ///
    /// - Parameters:
    ///   - source1: The first `Single`.
    ///   - source2: The second `Single`.
    ///   - source3: The third `Single`.
    ///   - resultSelector: Builds the result; an error it throws becomes the failure.
    /// - Returns: A `Single` that succeeds once all have, and fails as soon as one fails, disposing
    ///   (cancelling) the others.
    /// - Note: The result arrives on the thread of the source that finished last (or failed first).
    public static func zip<E1, E2, E3>(
        _ source1: Single<E1>, _ source2: Single<E2>, _ source3: Single<E3>,
        resultSelector: @escaping @Sendable (E1, E2, E3) throws -> Element
    ) -> Single<Element> {
        Single(unchecked: Combine3Observable(
            .zip, source1.source, source2.source, source3.source, resultSelector: resultSelector
        ))
    }

    /// Runs four `Single`s at once and combines their elements when all have succeeded.
    ///
    /// - Parameters:
    ///   - source1: The first `Single`.
    ///   - source2: The second `Single`.
    ///   - source3: The third `Single`.
    ///   - source4: The fourth `Single`.
    ///   - resultSelector: Builds the result; an error it throws becomes the failure.
    /// - Returns: A `Single` that succeeds once all have, and fails as soon as one fails, disposing
    ///   (cancelling) the others.
    /// - Note: The result arrives on the thread of the source that finished last (or failed first).
    public static func zip<E1, E2, E3, E4>(
        _ source1: Single<E1>, _ source2: Single<E2>, _ source3: Single<E3>, _ source4: Single<E4>,
        resultSelector: @escaping @Sendable (E1, E2, E3, E4) throws -> Element
    ) -> Single<Element> {
        Single(unchecked: Combine4Observable(
            .zip, source1.source, source2.source, source3.source, source4.source, resultSelector: resultSelector
        ))
    }

    /// Runs every `Single` of a collection at once and succeeds with their elements, in the order
    /// of the collection.
    ///
    /// - Parameter sources: The `Single`s; an empty collection succeeds at once with `[]`.
    /// - Returns: A `Single` that succeeds once all have, and fails as soon as one fails, disposing
    ///   (cancelling) the others.
    /// - Note: The result arrives on the thread of the source that finished last (or failed first).
    public static func zip<Sources: Collection>(_ sources: Sources) -> Single<[Element]>
    where Sources.Element == Single<Element> {
        Single<[Element]>.zip(sources) { $0 }
    }

    /// Runs every `Single` of a collection at once and combines their elements, in the order of the
    /// collection, with `resultSelector`.
    ///
    /// - Parameters:
    ///   - sources: The `Single`s; an empty collection succeeds at once with `resultSelector([])`.
    ///   - resultSelector: Builds the result; an error it throws becomes the failure.
    /// - Returns: A `Single` that succeeds once all have, and fails as soon as one fails, disposing
    ///   (cancelling) the others.
    /// - Note: The result arrives on the thread of the source that finished last (or failed first).
    public static func zip<Sources: Collection, SourceElement>(
        _ sources: Sources, resultSelector: @escaping @Sendable ([SourceElement]) throws -> Element
    ) -> Single<Element> where Sources.Element == Single<SourceElement> {
        guard !sources.isEmpty else {
            return Single(unchecked: Observable<[SourceElement]>.just([]).map(resultSelector))
        }
        return Single(unchecked: CombineCollectionObservable(
            .zip, sources: sources.map(\.source), resultSelector: resultSelector
        ))
    }
}

extension Single where Element == Any {
    /// Runs two `Single`s at once and succeeds with both elements as a tuple.
    ///
    /// - Parameters:
    ///   - source1: The first `Single`.
    ///   - source2: The second `Single`.
    /// - Returns: A `Single` that succeeds once both have, and fails as soon as either fails,
    ///   disposing (cancelling) the other.
    /// - Note: The result arrives on the thread of the source that finished last (or failed first).
    public static func zip<E1, E2>(_ source1: Single<E1>, _ source2: Single<E2>) -> Single<(E1, E2)> {
        Single<(E1, E2)>.zip(source1, source2) { ($0, $1) }
    }

    /// Runs three `Single`s at once and succeeds with their elements as a tuple.
    ///
    /// - Parameters:
    ///   - source1: The first `Single`.
    ///   - source2: The second `Single`.
    ///   - source3: The third `Single`.
    /// - Returns: A `Single` that succeeds once all have, and fails as soon as one fails, disposing
    ///   (cancelling) the others.
    /// - Note: The result arrives on the thread of the source that finished last (or failed first).
    public static func zip<E1, E2, E3>(
        _ source1: Single<E1>, _ source2: Single<E2>, _ source3: Single<E3>
    ) -> Single<(E1, E2, E3)> {
        Single<(E1, E2, E3)>.zip(source1, source2, source3) { ($0, $1, $2) }
    }

    /// Runs four `Single`s at once and succeeds with their elements as a tuple.
    ///
    /// - Parameters:
    ///   - source1: The first `Single`.
    ///   - source2: The second `Single`.
    ///   - source3: The third `Single`.
    ///   - source4: The fourth `Single`.
    /// - Returns: A `Single` that succeeds once all have, and fails as soon as one fails, disposing
    ///   (cancelling) the others.
    /// - Note: The result arrives on the thread of the source that finished last (or failed first).
    public static func zip<E1, E2, E3, E4>(
        _ source1: Single<E1>, _ source2: Single<E2>, _ source3: Single<E3>, _ source4: Single<E4>
    ) -> Single<(E1, E2, E3, E4)> {
        Single<(E1, E2, E3, E4)>.zip(source1, source2, source3, source4) { ($0, $1, $2, $3) }
    }
}
