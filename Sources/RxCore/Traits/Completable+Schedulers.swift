extension Completable {
    /// Delivers the event on `scheduler`.
    ///
    /// - Parameter scheduler: Where the event is delivered.
    /// - Returns: The same event, moved to `scheduler`.
    /// - Note: The event arrives on `scheduler`. Thread-safe.
    public func observe(on scheduler: any ImmediateSchedulerType) -> Completable {
        Completable(unchecked: source.observe(on: scheduler))
    }

    /// Subscribes to the source, and later disposes of that subscription, on `scheduler`.
    ///
    /// - Parameter scheduler: Where the source's subscribe (and dispose) work runs.
    /// - Returns: The same event.
    /// - Note: The event arrives on the source's thread. Thread-safe.
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> Completable {
        Completable(unchecked: source.subscribe(on: scheduler))
    }
}
