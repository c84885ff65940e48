// `do` takes each trait's own handler names (RxSwift's), and all of them run through one
// implementation, `doing`, over `Observable.do`. An error thrown by a handler that runs before its
// event (`onSuccess`/`onNext`, `onError`, `onCompleted`) is delivered in its place; one thrown by an
// `after…` handler is dropped, since the outcome has already gone out.

extension PrimitiveSequence {
    fileprivate func doing(
        onElement: (@Sendable (Element) throws -> Void)?,
        afterElement: (@Sendable (Element) throws -> Void)?,
        onError: (@Sendable (Swift.Error) throws -> Void)?,
        afterError: (@Sendable (Swift.Error) throws -> Void)?,
        onCompleted: (@Sendable () throws -> Void)?,
        afterCompleted: (@Sendable () throws -> Void)?,
        onSubscribe: (@Sendable () -> Void)?,
        onSubscribed: (@Sendable () -> Void)?,
        onDispose: (@Sendable () -> Void)?
    ) -> PrimitiveSequence<Trait, Element> {
        PrimitiveSequence(unchecked: source.do(
            onNext: onElement,
            afterNext: afterElement.map { handler in { @Sendable element in _ = try? handler(element) } },
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

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// Runs side effects at points of the subscription's life, leaving the outcome unchanged.
    ///
    /// - Parameters:
    ///   - onSuccess: Before the success value is delivered; an error it throws fails the `Single`.
    ///   - afterSuccess: After the success value is delivered.
    ///   - onError: Before the error is delivered; an error it throws replaces it.
    ///   - afterError: After the error is delivered.
    ///   - onSubscribe: Before the subscription starts.
    ///   - onSubscribed: After the subscription started.
    ///   - onDispose: Once, when the subscription ends: after the outcome or on dispose.
    /// - Returns: The same `Single`, with the side effects.
    /// - Note: Handlers run on the thread of the event they accompany; see `Observable.do`.
    public func `do`(
        onSuccess: (@Sendable (Element) throws -> Void)? = nil,
        afterSuccess: (@Sendable (Element) throws -> Void)? = nil,
        onError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        afterError: (@Sendable (Swift.Error) throws -> Void)? = nil,
        onSubscribe: (@Sendable () -> Void)? = nil,
        onSubscribed: (@Sendable () -> Void)? = nil,
        onDispose: (@Sendable () -> Void)? = nil
    ) -> Single<Element> {
        primitiveSequence.doing(
            onElement: onSuccess, afterElement: afterSuccess, onError: onError, afterError: afterError,
            onCompleted: nil, afterCompleted: nil,
            onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose
        )
    }
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// Runs side effects at points of the subscription's life, leaving the outcome unchanged —
    /// RxSwift's spelling, with `onNext` for the element.
    ///
    /// - Parameters:
    ///   - onNext: Before the element is delivered; an error it throws fails the `Maybe`.
    ///   - afterNext: After the element is delivered.
    ///   - onError: Before the error is delivered; an error it throws replaces it.
    ///   - afterError: After the error is delivered.
    ///   - onCompleted: Before completion — also the completion that follows an element, as in
    ///     RxSwift; an error it throws is delivered instead.
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
        primitiveSequence.doing(
            onElement: onNext, afterElement: afterNext, onError: onError, afterError: afterError,
            onCompleted: onCompleted, afterCompleted: afterCompleted,
            onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose
        )
    }

    /// `do(onNext:…)` in the spelling of `Single.do`, with `onSuccess`/`afterSuccess` for the
    /// element; a call using only the labels both share resolves to `do(onNext:…)`.
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
        primitiveSequence.doing(
            onElement: onSuccess, afterElement: afterSuccess, onError: onError, afterError: afterError,
            onCompleted: onCompleted, afterCompleted: afterCompleted,
            onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose
        )
    }
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// Runs side effects at points of the subscription's life, leaving the event unchanged.
    ///
    /// - Parameters:
    ///   - onError: Before the error is delivered; an error it throws replaces it.
    ///   - afterError: After the error is delivered.
    ///   - onCompleted: Before completion is delivered; an error it throws is delivered instead.
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
        primitiveSequence.doing(
            onElement: nil, afterElement: nil, onError: onError, afterError: afterError,
            onCompleted: onCompleted, afterCompleted: afterCompleted,
            onSubscribe: onSubscribe, onSubscribed: onSubscribed, onDispose: onDispose
        )
    }
}
