/// The event a `Single` delivers: one element, or an error.
public typealias SingleEvent<Element> = Result<Element, Swift.Error>

extension PrimitiveSequenceType where Trait == SingleTrait {
    /// The function handed to `create`, which delivers the one event.
    public typealias SingleObserver = @Sendable (SingleEvent<Element>) -> Void

    /// Creates a `Single` from a subscribe function.
    ///
    /// - Parameter subscribe: Receives the `single` function; call it once with `.success(value)`
    ///   or `.failure(error)`, and return what to release on dispose. Later calls are ignored.
    /// - Returns: A cold `Single`.
    /// - Note: The event is delivered on the thread that calls the `single` function. Thread-safe.
    @inlinable
    public static func create(subscribe: @escaping @Sendable (@escaping SingleObserver) -> Disposable) -> Single<Element> {
        Single(unchecked: Observable.create { observer in
            subscribe { observer.onSingleEvent($0) }
        })
    }

    /// `create` for this package's own adapters whose closure captures values that are not
    /// `Sendable`; see `Observable.createCapturingNonSendable`. SPI, not API; public and inlinable
    /// so that the adapters' modules specialize it.
    @_spi(RxNetworkKitInternals) @inlinable
    public static func createCapturingNonSendable(
        subscribe: @escaping (@escaping SingleObserver) -> Disposable
    ) -> Single<Element> {
        Single(unchecked: Observable.createCapturingNonSendable { observer in
            subscribe { observer.onSingleEvent($0) }
        })
    }

    /// Returns itself.
    public func asSingle() -> Single<Element> {
        primitiveSequence
    }

    /// Converts to a `Maybe` that succeeds or fails as this `Single` does.
    ///
    /// - Returns: The same outcome as a `Maybe`; it never completes empty.
    public func asMaybe() -> Maybe<Element> {
        Maybe(unchecked: primitiveSequence.source)
    }

    /// Subscribes with closures for success, failure and disposal.
    ///
    /// - Parameters:
    ///   - onSuccess: Called once with the element.
    ///   - onFailure: Called once with the error. If nil, the error goes to
    ///     `Hooks.defaultErrorHandler`, as in RxSwift.
    ///   - onDisposed: Called once when the subscription ends: after the event or on dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the event arrives on. Thread-safe.
    @inlinable
    public func subscribe(
        onSuccess: (@Sendable (Element) -> Void)? = nil,
        onFailure: (@Sendable (Swift.Error) -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> Disposable {
        PrimitiveSubscriber<Element>(
            requiresElement: true, onSuccess: onSuccess, onError: onFailure ?? Hooks.unhandledErrorHandler(),
            onCompleted: nil, onDisposed: onDisposed
        )
        .subscribe(to: primitiveSequence.source)
    }

    /// Subscribes with one closure that receives the result.
    ///
    /// - Parameter observer: Called once with `.success` or `.failure`.
    /// - Returns: The subscription; disposing it cancels the work.
    /// - Note: `observer` runs on the thread the event arrives on. Thread-safe.
    public func subscribe(_ observer: @escaping @Sendable (SingleEvent<Element>) -> Void) -> Disposable {
        subscribe(onSuccess: { observer(.success($0)) }, onFailure: { observer(.failure($0)) })
    }

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
        onFailure: (@Sendable (Object, Swift.Error) -> Void)? = nil,
        onDisposed: (@Sendable (Object) -> Void)? = nil
    ) -> Disposable {
        let weak = WeakHandlers(object)
        return subscribe(onSuccess: weak.bind(onSuccess), onFailure: weak.bind(onFailure), onDisposed: weak.bind(onDisposed))
    }
}

extension ObserverType {
    /// Delivers a `Single`'s event: the element then completion, or the error.
    @inlinable
    func onSingleEvent(_ event: SingleEvent<Element>) {
        switch event {
        case .success(let element):
            onNext(element)
            onCompleted()
        case .failure(let error):
            onError(error)
        }
    }
}
