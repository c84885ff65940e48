extension Single {
    /// Continues with the `Single` returned by `handler` when this one fails.
    ///
    /// - Parameter handler: Receives the error and returns the `Single` to subscribe instead; an error
    ///   it throws fails the result with it.
    /// - Returns: A `Single` of this one's element, or of the fallback's outcome.
    /// - Note: `handler` runs on the thread the error arrives on. Disposing disposes whichever
    ///   `Single` is subscribed.
    public func `catch`(_ handler: @escaping @Sendable (Error) throws -> Single<Element>) -> Single<Element> {
        Single(unchecked: source.catch { try handler($0).asObservable() })
    }

    /// Succeeds with `element` when this `Single` fails.
    ///
    /// - Parameter element: The value delivered in place of the error.
    /// - Returns: A `Single` that never fails.
    public func catchAndReturn(_ element: Element) -> Single<Element> {
        Single(unchecked: source.catchAndReturn(element))
    }
}
