extension PrimitiveSequence where Trait: ElementTrait {
    /// Transforms the element.
    ///
    /// - Parameter transform: Maps the element; an error it throws fails the sequence with it.
    /// - Returns: A sequence of the same trait with the transformed element; completion and errors
    ///   pass through unchanged.
    /// - Note: `transform` runs on the thread the element arrives on.
    @inlinable
    public func map<Result>(_ transform: @escaping @Sendable (Element) throws -> Result) -> PrimitiveSequence<Trait, Result> {
        PrimitiveSequence<Trait, Result>(unchecked: source.map(transform))
    }

    /// Transforms the element, completing without one when `transform` returns `nil`.
    ///
    /// - Parameter transform: Maps the element; an error it throws fails the result with it.
    /// - Returns: A `Maybe` of the non-`nil` transformed element.
    /// - Note: `transform` runs on the thread the element arrives on.
    public func compactMap<Result>(_ transform: @escaping @Sendable (Element) throws -> Result?) -> Maybe<Result> {
        Maybe<Result>(unchecked: source.compactMap(transform))
    }

    /// Keeps the element only if it satisfies `predicate`; otherwise completes without one.
    ///
    /// - Parameter predicate: Tests the element; an error it throws fails the result with it.
    /// - Returns: A `Maybe` of the element if it passed.
    /// - Note: `predicate` runs on the thread the element arrives on.
    public func filter(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Maybe<Element> {
        Maybe(unchecked: source.filter(predicate))
    }
}
