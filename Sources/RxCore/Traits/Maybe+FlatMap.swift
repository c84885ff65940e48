extension Maybe {
    /// Chains a `Maybe` that depends on this one's element.
    ///
    /// - Parameter selector: Returns the next `Maybe` for the element; an error it throws becomes
    ///   the failure. Not called if this `Maybe` completes empty.
    /// - Returns: A `Maybe` with the chained one's outcome; it completes empty if this one does, and
    ///   fails if this one, the selector or the chained one fails.
    /// - Note: `selector` runs on the thread the element arrives on; the result arrives on the
    ///   chained `Maybe`'s thread. Disposing cancels whichever of the two is running.
    public func flatMap<Result>(_ selector: @escaping @Sendable (Element) throws -> Maybe<Result>) -> Maybe<Result> {
        Maybe<Result>(unchecked: FlatMapObservable(source: source, maxConcurrent: .max, dropsWhenBusy: false) {
            try selector($0).source
        })
    }
}
