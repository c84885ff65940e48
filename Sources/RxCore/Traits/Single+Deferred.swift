extension Single {
    /// A `Single` built anew, by `factory`, for each subscription.
    ///
    /// - Parameter factory: Makes the `Single` to subscribe to; an error it throws fails the
    ///   subscription with it.
    /// - Returns: A `Single` that defers all work, `factory` included, to subscription time.
    /// - Note: `factory` runs on the subscribing thread, once per subscription.
    public static func deferred(_ factory: @escaping @Sendable () throws -> Single<Element>) -> Single<Element> {
        Single(unchecked: Observable.deferred { try factory().asObservable() })
    }
}
