extension Completable {
    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: A `Completable` that completes when `second` does, or fails with the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on. The same as
    ///   `andThen(_:)`: this one's subscription is released before `second` is subscribed.
    public func concat(_ second: Completable) -> Completable {
        andThen(second)
    }

    /// Runs the `Completable`s one after the other, each once the previous one completed.
    ///
    /// - Parameter sources: The `Completable`s, in order; none completes at once.
    /// - Returns: A `Completable` that completes after the last one, and fails as soon as one fails
    ///   (the later ones are then never subscribed).
    /// - Note: Each is subscribed on the thread the previous one completed on, in constant stack
    ///   depth. Thread-safe.
    public static func concat(_ sources: Completable...) -> Completable {
        concat(sources)
    }

    /// Runs the `Completable`s of a collection one after the other, each once the previous one
    /// completed.
    ///
    /// - Parameter sources: The `Completable`s, in order; an empty collection completes at once.
    /// - Returns: A `Completable` that completes after the last one, and fails as soon as one fails
    ///   (the later ones are then never subscribed).
    /// - Note: Each is subscribed on the thread the previous one completed on, in constant stack
    ///   depth. Thread-safe.
    public static func concat<Sources: Collection>(_ sources: Sources) -> Completable
    where Sources.Element == Completable {
        Completable(unchecked: Observable.concat(sources.map(\.source)))
    }

    /// Runs the `Completable`s of a sequence one after the other, each once the previous one
    /// completed.
    ///
    /// - Parameter sources: The `Completable`s, in order; read once, when this is called, so it
    ///   must be finite. An empty sequence completes at once.
    /// - Returns: A `Completable` that completes after the last one, and fails as soon as one fails
    ///   (the later ones are then never subscribed).
    /// - Note: Each is subscribed on the thread the previous one completed on, in constant stack
    ///   depth. Thread-safe.
    public static func concat<Sources: Sequence>(_ sources: Sources) -> Completable
    where Sources.Element == Completable {
        Completable(unchecked: Observable.concat(sources.map(\.source)))
    }
}
