extension PrimitiveSequence {
    /// Delivers the outcome on `scheduler`.
    ///
    /// - Parameter scheduler: Where the outcome is delivered.
    /// - Returns: The same outcome, moved to `scheduler`.
    /// - Note: The outcome arrives on `scheduler`. Thread-safe.
    public func observe(on scheduler: any ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.observe(on: scheduler))
    }

    /// Subscribes to the source, and later disposes of that subscription, on `scheduler`.
    ///
    /// - Parameter scheduler: Where the source's subscribe (and dispose) work runs.
    /// - Returns: The same outcome.
    /// - Note: The outcome arrives on the source's thread. Thread-safe.
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.subscribe(on: scheduler))
    }
}
