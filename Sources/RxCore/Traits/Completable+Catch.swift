extension Completable {
    /// Continues with the `Completable` returned by `handler` when this one fails.
    ///
    /// - Parameter handler: Receives the error and returns the `Completable` to subscribe instead;
    ///   an error it throws fails the result with it.
    /// - Returns: A `Completable` with this one's completion, or the fallback's event.
    /// - Note: `handler` runs on the thread the error arrives on. Disposing disposes whichever
    ///   `Completable` is subscribed.
    public func `catch`(_ handler: @escaping @Sendable (Swift.Error) throws -> Completable) -> Completable {
        Completable(unchecked: source.catch { try handler($0).source })
    }
}
