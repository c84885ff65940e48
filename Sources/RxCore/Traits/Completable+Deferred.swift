extension Completable {
    /// A `Completable` built anew, by `factory`, for each subscription.
    ///
    /// - Parameter factory: Makes the `Completable` to subscribe to; an error it throws fails the
    ///   subscription with it.
    /// - Returns: A `Completable` that defers all work, `factory` included, to subscription time.
    /// - Note: `factory` runs on the subscribing thread, once per subscription.
    public static func deferred(_ factory: @escaping @Sendable () throws -> Completable) -> Completable {
        Completable(unchecked: Observable.deferred { try factory().source })
    }
}
