extension Maybe {
    /// A `Maybe` built anew, by `factory`, for each subscription.
    ///
    /// - Parameter factory: Makes the `Maybe` to subscribe to; an error it throws fails the
    ///   subscription with it.
    /// - Returns: A `Maybe` that defers all work, `factory` included, to subscription time.
    /// - Note: `factory` runs on the subscribing thread, once per subscription.
    public static func deferred(_ factory: @escaping @Sendable () throws -> Maybe<Element>) -> Maybe<Element> {
        Maybe(unchecked: Observable.deferred { try factory().asObservable() })
    }
}
