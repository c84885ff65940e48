extension Single {
    /// Converts to a `Maybe` that succeeds or fails as this `Single` does.
    ///
    /// - Returns: The same outcome as a `Maybe`; it never completes empty.
    public func asMaybe() -> Maybe<Element> {
        Maybe(unchecked: source)
    }
}

extension Maybe {
    /// Converts to a `Completable` that ignores the element and keeps the termination.
    ///
    /// - Returns: A `Completable` that completes when this `Maybe` succeeds or completes, and fails
    ///   when it fails.
    /// - Note: The event arrives on this `Maybe`'s thread.
    public func asCompletable() -> Completable {
        source.asCompletable()
    }
}
