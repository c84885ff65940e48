extension Single {
    /// Transforms the success value.
    ///
    /// - Parameter transform: Maps the element; an error it throws fails the `Single` with it.
    /// - Returns: A `Single` of the transformed element; a failure passes through unchanged.
    /// - Note: `transform` runs on the thread the element arrives on.
    @inlinable
    public func map<Result>(_ transform: @escaping @Sendable (Element) throws -> Result) -> Single<Result> {
        Single<Result>(unchecked: source.map(transform))
    }
}
