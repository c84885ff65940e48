extension Completable {
    /// Runs the `Completable`s at once and completes when all have completed.
    ///
    /// - Parameter sources: The `Completable`s, all subscribed at once; none completes at once.
    /// - Returns: A `Completable` that completes once every one has, and fails as soon as one fails,
    ///   disposing (cancelling) the others.
    /// - Note: The event arrives on the thread of the one that finished last (or failed first).
    ///   Thread-safe. As in RxSwift, `zip` of `Completable`s is `merge`.
    public static func zip(_ sources: Completable...) -> Completable {
        merge(sources)
    }

    /// Runs the `Completable`s of a collection at once and completes when all have completed.
    ///
    /// - Parameter sources: The `Completable`s, all subscribed at once; an empty collection
    ///   completes at once.
    /// - Returns: A `Completable` that completes once every one has, and fails as soon as one fails,
    ///   disposing (cancelling) the others.
    /// - Note: The event arrives on the thread of the one that finished last (or failed first).
    ///   Thread-safe.
    public static func zip<Sources: Collection>(_ sources: Sources) -> Completable
    where Sources.Element == Completable {
        merge(sources)
    }

    /// Runs the `Completable`s at once and completes when all have completed; the same as `zip`.
    ///
    /// - Parameter sources: The `Completable`s, all subscribed at once; none completes at once.
    /// - Returns: A `Completable` that completes once every one has, and fails as soon as one fails,
    ///   disposing (cancelling) the others.
    /// - Note: The event arrives on the thread of the one that finished last (or failed first).
    ///   Thread-safe.
    public static func merge(_ sources: Completable...) -> Completable {
        merge(sources)
    }

    /// Runs the `Completable`s of a collection at once and completes when all have completed; the
    /// same as `zip`.
    ///
    /// - Parameter sources: The `Completable`s, all subscribed at once; an empty collection
    ///   completes at once.
    /// - Returns: A `Completable` that completes once every one has, and fails as soon as one fails,
    ///   disposing (cancelling) the others.
    /// - Note: The event arrives on the thread of the one that finished last (or failed first).
    ///   Thread-safe.
    public static func merge<Sources: Collection>(_ sources: Sources) -> Completable
    where Sources.Element == Completable {
        Completable(unchecked: Observable.merge(sources.map(\.source)))
    }
}
