extension Maybe {
    /// Runs side effects at points of the subscription's life, leaving the outcome unchanged —
    /// RxSwift's spelling, with `onNext` for the element.
    ///
    /// An error thrown by `onNext` fails the `Maybe` with it instead of succeeding; one thrown by
    /// `onError` replaces the error; one thrown by `onCompleted` is delivered instead of completion;
    /// errors thrown by `afterNext`, `afterError` and `afterCompleted` are dropped, since the outcome
    /// has already gone out.
    ///
    /// - Parameters:
    ///   - onNext: Before the element is delivered.
    ///   - afterNext: After the element is delivered.
    ///   - onError: Before the error is delivered.
    ///   - afterError: After the error is delivered.
    ///   - onCompleted: Before completion — also the completion that follows an element, as in
    ///     RxSwift.
    ///   - afterCompleted: After completion.
    ///   - onSubscribe: Before the subscription starts.
    ///   - onSubscribed: After the subscription started.
    ///   - onDispose: Once, when the subscription ends: after the outcome or on dispose.
    /// - Returns: The same `Maybe`, with the side effects.
    /// - Note: Handlers run on the thread of the event they accompany; see `Observable.do`.
    public func `do`(
        onNext: (@Sendable (Element) throws -> Void)? = nil,
        afterNext: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        afterError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        onCompleted: (@Sendable () throws -> Void)? = nil,
        afterCompleted: (@Sendable () throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Maybe<Element> {
        Maybe(unchecked: source.do(
            onNext: onNext,
            afterNext: afterNext.map { handler in { @Sendable element in _ = try? handler(element) } },
            onError: onError,
            afterError: afterError,
            onCompleted: onCompleted,
            afterCompleted: afterCompleted,
            onSubscribe: onSubscribe,
            onSubscribed: onSubscribed,
            onDispose: onDispose
        ))
    }

    /// Runs side effects at points of the subscription's life, leaving the outcome unchanged — the
    /// spelling of `Single.do`, with `onSuccess` for the element.
    ///
    /// Same as `do(onNext:afterNext:onError:afterError:onCompleted:afterCompleted:onSubscribe:onSubscribed:onDispose:)`,
    /// which a call using only the labels both share resolves to.
    ///
    /// - Parameters:
    ///   - onSuccess: Before the element is delivered; an error it throws fails the `Maybe`.
    ///   - afterSuccess: After the element is delivered; an error it throws is dropped.
    ///   - onError: Before the error is delivered; an error it throws replaces it.
    ///   - afterError: After the error is delivered; an error it throws is dropped.
    ///   - onCompleted: Before completion (also the one that follows an element); an error it throws
    ///     is delivered instead.
    ///   - afterCompleted: After completion; an error it throws is dropped.
    ///   - onSubscribe: Before the subscription starts.
    ///   - onSubscribed: After the subscription started.
    ///   - onDispose: Once, when the subscription ends: after the outcome or on dispose.
    /// - Returns: The same `Maybe`, with the side effects.
    /// - Note: Handlers run on the thread of the event they accompany; see `Observable.do`.
    @_disfavoredOverload
    public func `do`(
        onSuccess: (@Sendable (Element) throws -> Void)? = nil,
        afterSuccess: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        afterError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        onCompleted: (@Sendable () throws -> Void)? = nil,
        afterCompleted: (@Sendable () throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Maybe<Element> {
        self.do(
            onNext: onSuccess,
            afterNext: afterSuccess,
            onError: onError,
            afterError: afterError,
            onCompleted: onCompleted,
            afterCompleted: afterCompleted,
            onSubscribe: onSubscribe,
            onSubscribed: onSubscribed,
            onDispose: onDispose
        )
    }
}
