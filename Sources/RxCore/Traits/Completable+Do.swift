extension Completable {
    /// Runs side effects at points of the subscription's life, leaving the event unchanged.
    ///
    /// An error thrown by `onError` replaces the error; one thrown by `onCompleted` is delivered
    /// instead of completion; errors thrown by `afterError` and `afterCompleted` are dropped, since
    /// the event has already gone out.
    ///
    /// - Parameters:
    ///   - onError: Before the error is delivered.
    ///   - afterError: After the error is delivered.
    ///   - onCompleted: Before completion is delivered.
    ///   - afterCompleted: After completion is delivered.
    ///   - onSubscribe: Before the subscription starts.
    ///   - onSubscribed: After the subscription started.
    ///   - onDispose: Once, when the subscription ends: after the event or on dispose.
    /// - Returns: The same `Completable`, with the side effects.
    /// - Note: Handlers run on the thread of the event they accompany; see `Observable.do`.
    public func `do`(
        onError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        afterError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        onCompleted: (@Sendable () throws -> Void)? = nil,
        afterCompleted: (@Sendable () throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Completable {
        Completable(unchecked: source.do(
            onError: onError,
            afterError: afterError,
            onCompleted: onCompleted,
            afterCompleted: afterCompleted,
            onSubscribe: onSubscribe,
            onSubscribed: onSubscribed,
            onDispose: onDispose
        ))
    }
}
