extension Maybe {
    /// Continues with the `Maybe` returned by `handler` when this one fails.
    ///
    /// - Parameter handler: Receives the error and returns the `Maybe` to subscribe instead; an error
    ///   it throws fails the result with it.
    /// - Returns: A `Maybe` of this one's outcome, or of the fallback's.
    /// - Note: `handler` runs on the thread the error arrives on. Disposing disposes whichever
    ///   `Maybe` is subscribed.
    public func `catch`(_ handler: @escaping @Sendable (Swift.Error) throws -> Maybe<Element>) -> Maybe<Element> {
        Maybe(unchecked: source.catch { try handler($0).asObservable() })
    }

    /// Succeeds with `element` when this `Maybe` fails.
    ///
    /// - Parameter element: The value delivered in place of the error.
    /// - Returns: A `Maybe` that never fails.
    /// - Note: `element` is delivered on the thread the error arrives on.
    public func catchAndReturn(_ element: Element) -> Maybe<Element> {
        Maybe(unchecked: source.catchAndReturn(element))
    }
}
