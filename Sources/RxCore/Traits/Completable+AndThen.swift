extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: A `Single` with `second`'s element, or the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on.
    public func andThen<Result>(_ second: Single<Result>) -> Single<Result> {
        Single(unchecked: primitiveSequence.then(second.asObservable()))
    }

    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: A `Maybe` with `second`'s outcome, or the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on.
    public func andThen<Result>(_ second: Maybe<Result>) -> Maybe<Result> {
        Maybe(unchecked: primitiveSequence.then(second.asObservable()))
    }

    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: A `Completable` that completes when `second` does, or fails with the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on.
    public func andThen(_ second: Completable) -> Completable {
        Completable(unchecked: primitiveSequence.then(second.asObservable()))
    }

    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: `second`'s events, or the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on.
    public func andThen<Result>(_ second: Observable<Result>) -> Observable<Result> {
        primitiveSequence.then(second)
    }
}

extension PrimitiveSequence where Trait == CompletableTrait, Element == Never {
    /// The one implementation of `andThen`: `second` is subscribed once this `Completable`
    /// completed (it never has an element, so its completion is always "empty"), after its own
    /// subscription was released, so that a long-running second does not keep the finished first
    /// and what its operators capture alive.
    fileprivate func then<Result>(_ second: Observable<Result>) -> Observable<Result> {
        source.map(Self.absurd).ifEmpty(switchTo: second)
    }

    /// The element of a sequence that has none, as any type.
    private static func absurd<Result>(_ element: Never) -> Result {}
}
