extension Single {
    /// Subscribes with closures that receive `object`, held weakly: once it is gone, the result is
    /// ignored, as in RxSwift.
    ///
    /// - Parameters:
    ///   - object: Passed to each handler while it is alive; not retained by the subscription.
    ///   - onSuccess: Called once with `object` and the element.
    ///   - onFailure: Called once with `object` and the error.
    ///   - onDisposed: Called once with `object` when the subscription ends: after the event or on
    ///     dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the event arrives on. Thread-safe.
    public func subscribe<Object: AnyObject & Sendable>(
        with object: Object,
        onSuccess: (@Sendable (Object, Element) -> Void)? = nil,
        onFailure: (@Sendable (Object, Error) -> Void)? = nil,
        onDisposed: (@Sendable (Object) -> Void)? = nil
    ) -> Disposable {
        subscribe(
            onSuccess: onSuccess.map { handler in
                { @Sendable [weak object] element in
                    if let object { handler(object, element) }
                }
            },
            onFailure: onFailure.map { handler in
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
