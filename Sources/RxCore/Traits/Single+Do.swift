extension Single {
    /// Runs side effects at points of the subscription's life, leaving the outcome unchanged.
    ///
    /// An error thrown by `onSuccess` fails the `Single` with it instead of succeeding; one thrown by
    /// `onError` replaces the error; errors thrown by `afterSuccess` and `afterError` are dropped,
    /// since the outcome has already gone out.
    ///
    /// - Parameters:
    ///   - onSuccess: Before the success value is delivered.
    ///   - afterSuccess: After the success value is delivered.
    ///   - onError: Before the error is delivered.
    ///   - afterError: After the error is delivered.
    ///   - onSubscribe: Before the subscription starts.
    ///   - onSubscribed: After the subscription started.
    ///   - onDispose: Once, when the subscription ends: after the outcome or on dispose.
    /// - Returns: The same `Single`, with the side effects.
    /// - Note: Handlers run on the thread of the event they accompany; see `Observable.do`.
    public func `do`(
        onSuccess: (@Sendable (Element) throws -> Void)? = nil,
        afterSuccess: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (Error) throws -> Void)? = nil,
        afterError: (@Sendable (Error) throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Single<Element> {
        Single(unchecked: source.do(
            onNext: onSuccess,
            afterNext: afterSuccess.map { handler in { @Sendable element in _ = try? handler(element) } },
            onError: onError,
            afterError: afterError,
            onSubscribe: onSubscribe,
            onSubscribed: onSubscribed,
            onDispose: onDispose
        ))
    }
}
