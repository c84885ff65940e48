extension ObservableType {
    /// Subscribes with closures that receive `object`, held weakly: once it is gone, later events
    /// are ignored (the subscription itself goes on until disposed or terminated), as in RxSwift.
    ///
    /// Saves the `[weak self] in guard let self else { return }` dance in each handler.
    ///
    /// - Parameters:
    ///   - object: Passed to each handler while it is alive; not retained by the subscription.
    ///   - onNext: Called with `object` and each element.
    ///   - onError: Called once with `object` and the error if the sequence fails. If nil, the
    ///     error goes to `Hooks.defaultErrorHandler`, as with `subscribe(onNext:onError:...)`.
    ///   - onCompleted: Called once with `object` if the sequence completes.
    ///   - onDisposed: Called once with `object` when the subscription ends: after a terminal event
    ///     or on dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the events arrive on. Thread-safe.
    public func subscribe<Object: AnyObject & Sendable>(
        with object: Object,
        onNext: (@Sendable (Object, Element) -> Void)? = nil,
        onError: (@Sendable (Object, Error) -> Void)? = nil,
        onCompleted: (@Sendable (Object) -> Void)? = nil,
        onDisposed: (@Sendable (Object) -> Void)? = nil
    ) -> Disposable {
        let weak = WeakHandlers(object)
        return subscribe(
            onNext: weak.bind(onNext),
            onError: weak.bind(onError),
            onCompleted: weak.bind(onCompleted),
            onDisposed: weak.bind(onDisposed)
        )
    }
}
