extension Single {
    /// Delivers the result on `scheduler`.
    ///
    /// - Parameter scheduler: Where the result is delivered.
    /// - Returns: The same result, moved to `scheduler`.
    /// - Note: The result arrives on `scheduler`. Thread-safe.
    public func observe(on scheduler: any ImmediateSchedulerType) -> Single<Element> {
        Single(unchecked: source.observe(on: scheduler))
    }

    /// Subscribes to the source, and later disposes of that subscription, on `scheduler`.
    ///
    /// - Parameter scheduler: Where the source's subscribe (and dispose) work runs.
    /// - Returns: The same result.
    /// - Note: The result arrives on the source's thread. Thread-safe.
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> Single<Element> {
        Single(unchecked: source.subscribe(on: scheduler))
    }
}
