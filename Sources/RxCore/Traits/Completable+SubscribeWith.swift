extension Completable {
    /// Subscribes with closures that receive `object`, held weakly: once it is gone, the event is
    /// ignored, as in RxSwift.
    ///
    /// - Parameters:
    ///   - object: Passed to each handler while it is alive; not retained by the subscription.
    ///   - onCompleted: Called once with `object` if the work succeeds.
    ///   - onError: Called once with `object` and the error if it fails.
    ///   - onDisposed: Called once with `object` when the subscription ends: after the event or on
    ///     dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the event arrives on. Thread-safe.
    public func subscribe<Object: AnyObject & Sendable>(
        with object: Object,
        onCompleted: (@Sendable (Object) -> Void)? = nil,
        onError: (@Sendable (Object, Swift.Error) -> Void)? = nil,
        onDisposed: (@Sendable (Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onCompleted: onCompleted.map { handler in
                { @Sendable [weak object] in
                    if let object { handler(object) }
                }
            },
            onError: onError.map { handler in
                { @Sendable [weak object] error in
                    if let object { handler(object, error) }
                }
            },
            onDisposed: onDisposed.map { handler in
                { @Sendable [weak object] in
                    if let object { handler(object) }
                }
            }
        )
    }
}
