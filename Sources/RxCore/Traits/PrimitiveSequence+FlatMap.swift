extension PrimitiveSequence where Trait: ElementTrait {
    /// Chains a sequence of the same trait that depends on this one's element.
    ///
    /// - Parameter selector: Returns the next sequence for the element; an error it throws becomes
    ///   the failure. Not called if a `Maybe` completes empty.
    /// - Returns: A sequence with the chained one's outcome; a `Maybe` completes empty if this one
    ///   does; it fails if this one, the selector or the chained one fails.
    /// - Note: `selector` runs on the thread the element arrives on; the outcome arrives on the
    ///   chained sequence's thread. Disposing cancels whichever of the two is running.
    public func flatMap<Result>(
        _ selector: @escaping @Sendable (Element) throws -> PrimitiveSequence<Trait, Result>
    ) -> PrimitiveSequence<Trait, Result> {
        PrimitiveSequence<Trait, Result>(unchecked: chaining { try selector($0).source })
    }

    /// Continues with a sequence that depends on this one's element.
    ///
    /// - Parameter selector: Returns the sequence for the element; an error it throws terminates
    ///   the result.
    /// - Returns: The elements of that sequence; it fails if this one, the selector or the sequence
    ///   fails.
    /// - Note: `selector` runs on the thread the element arrives on.
    public func flatMapObservable<Result>(
        _ selector: @escaping @Sendable (Element) throws -> Observable<Result>
    ) -> Observable<Result> {
        chaining(selector)
    }

    /// Chains a `Maybe` that depends on this one's element.
    ///
    /// - Parameter selector: Returns the `Maybe` for the element; an error it throws becomes the
    ///   failure.
    /// - Returns: A `Maybe` with the chained one's outcome.
    /// - Note: `selector` runs on the thread the element arrives on; the outcome arrives on the
    ///   chained `Maybe`'s thread. Disposing cancels whichever of the two is running.
    public func flatMapMaybe<Result>(_ selector: @escaping @Sendable (Element) throws -> Maybe<Result>) -> Maybe<Result> {
        Maybe<Result>(unchecked: chaining { try selector($0).source })
    }

    /// Chains a `Completable` that depends on this one's element.
    ///
    /// - Parameter selector: Returns the `Completable` for the element; an error it throws becomes
    ///   the failure.
    /// - Returns: A `Completable` that completes when the chained one does (or when a `Maybe`
    ///   completes empty); it fails if this one, the selector or the chained `Completable` fails.
    /// - Note: `selector` runs on the thread the element arrives on. Disposing cancels whichever of
    ///   the two is running.
    public func flatMapCompletable(_ selector: @escaping @Sendable (Element) throws -> Completable) -> Completable {
        Completable(unchecked: chaining { try selector($0).source })
    }

    /// The one implementation of the chaining operators: the element's sequence, subscribed when
    /// the element arrives.
    private func chaining<Result>(
        _ selector: @escaping @Sendable (Element) throws -> Observable<Result>
    ) -> Observable<Result> {
        FlatMapObservable(source: source, maxConcurrent: .max, dropsWhenBusy: false, selector: selector)
    }
}
