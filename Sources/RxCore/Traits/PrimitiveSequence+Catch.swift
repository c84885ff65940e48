extension PrimitiveSequence {
    /// Continues with the sequence returned by `handler` when this one fails.
    ///
    /// - Parameter handler: Receives the error and returns the sequence (of the same trait) to
    ///   subscribe instead; an error it throws fails the result with it.
    /// - Returns: This sequence's outcome, or the fallback's.
    /// - Note: `handler` runs on the thread the error arrives on. Disposing disposes whichever
    ///   sequence is subscribed.
    public func `catch`(
        _ handler: @escaping @Sendable (Swift.Error) throws -> PrimitiveSequence<Trait, Element>
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.catch { try handler($0).source })
    }
}

extension PrimitiveSequence where Trait: ElementTrait {
    /// Succeeds with `element` when this sequence fails.
    ///
    /// - Parameter element: The value delivered in place of the error.
    /// - Returns: A sequence that never fails.
    /// - Note: `element` is delivered on the thread the error arrives on.
    public func catchAndReturn(_ element: Element) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.catchAndReturn(element))
    }
}
