/// The event a `Maybe` delivers: one element, an error, or completion without an element.
public enum MaybeEvent<Element> {
    /// The one element; the sequence then completes.
    case success(Element)
    /// Termination with an error.
    case error(Swift.Error)
    /// Termination without an element.
    case completed
}

extension PrimitiveSequenceType where Trait == MaybeTrait {
    /// The function handed to `create`, which delivers the one event.
    public typealias MaybeObserver = @Sendable (MaybeEvent<Element>) -> Void

    /// Creates a `Maybe` from a subscribe function.
    ///
    /// - Parameter subscribe: Receives the `maybe` function; call it once with `.success(value)`,
    ///   `.completed` or `.error(error)`, and return what to release on dispose. Later calls are
    ///   ignored.
    /// - Returns: A cold `Maybe`.
    /// - Note: The event is delivered on the thread that calls the `maybe` function. Thread-safe.
    public static func create(subscribe: @escaping @Sendable (@escaping MaybeObserver) -> Disposable) -> Maybe<Element> {
        Maybe(unchecked: Observable.create { observer in
            subscribe { event in
                switch event {
                case .success(let element):
                    observer.onNext(element)
                    observer.onCompleted()
                case .error(let error):
                    observer.onError(error)
                case .completed:
                    observer.onCompleted()
                }
            }
        })
    }

    /// A `Maybe` that completes at once without an element.
    ///
    /// - Returns: A `Maybe` completing on the subscribing thread, during `subscribe`.
    public static func empty() -> Maybe<Element> {
        Maybe(unchecked: Observable.empty())
    }

    /// Returns itself.
    public func asMaybe() -> Maybe<Element> {
        primitiveSequence
    }

    /// Subscribes with closures for success, error, completion without an element, and disposal.
    ///
    /// - Parameters:
    ///   - onSuccess: Called once with the element.
    ///   - onError: Called once with the error. If nil, the error goes to `Hooks.defaultErrorHandler`,
    ///     as in RxSwift.
    ///   - onCompleted: Called once if the `Maybe` completes without an element.
    ///   - onDisposed: Called once when the subscription ends: after the event or on dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the event arrives on. Thread-safe.
    public func subscribe(
        onSuccess: (@Sendable (Element) -> Void)? = nil,
        onError: (@Sendable (Swift.Error) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> Disposable {
        PrimitiveSubscriber<Element>(
            requiresElement: false, onSuccess: onSuccess, onError: onError ?? Hooks.unhandledErrorHandler(),
            onCompleted: onCompleted,
            onDisposed: onDisposed
        )
        .subscribe(to: primitiveSequence.source)
    }

    /// Subscribes with one closure that receives the event.
    ///
    /// - Parameter observer: Called once with `.success`, `.error` or `.completed`.
    /// - Returns: The subscription; disposing it cancels the work.
    /// - Note: `observer` runs on the thread the event arrives on. Thread-safe.
    public func subscribe(_ observer: @escaping @Sendable (MaybeEvent<Element>) -> Void) -> Disposable {
        subscribe(
            onSuccess: { observer(.success($0)) },
            onError: { observer(.error($0)) },
            onCompleted: { observer(.completed) }
        )
    }

    /// Subscribes with closures that receive `object`, held weakly: once it is gone, the event is
    /// ignored, as in RxSwift.
    ///
    /// - Parameters:
    ///   - object: Passed to each handler while it is alive; not retained by the subscription.
    ///   - onSuccess: Called once with `object` and the element.
    ///   - onError: Called once with `object` and the error.
    ///   - onCompleted: Called once with `object` if the `Maybe` completes without an element.
    ///   - onDisposed: Called once with `object` when the subscription ends.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the event arrives on. Thread-safe.
    public func subscribe<Object: AnyObject & Sendable>(
        with object: Object,
        onSuccess: (@Sendable (Object, Element) -> Void)? = nil,
        onError: (@Sendable (Object, Swift.Error) -> Void)? = nil,
        onCompleted: (@Sendable (Object) -> Void)? = nil,
        onDisposed: (@Sendable (Object) -> Void)? = nil
    ) -> Disposable {
        let weak = WeakHandlers(object)
        return subscribe(
            onSuccess: weak.bind(onSuccess),
            onError: weak.bind(onError),
            onCompleted: weak.bind(onCompleted),
            onDisposed: weak.bind(onDisposed)
        )
    }

    /// Succeeds with `default` when this `Maybe` completes without an element.
    ///
    /// - Parameter default: The element delivered in place of an empty completion.
    /// - Returns: A `Single` of this `Maybe`'s element, or of `default`; errors pass through.
    /// - Note: The result arrives on this `Maybe`'s thread. Thread-safe.
    public func ifEmpty(default: Element) -> Single<Element> {
        Single(unchecked: primitiveSequence.source.ifEmpty(default: `default`))
    }

    /// Continues with `other` when this `Maybe` completes without an element.
    ///
    /// - Parameter other: Subscribed only after an empty completion.
    /// - Returns: A `Maybe` of this one's element, or of `other`'s outcome.
    /// - Note: `other`'s outcome arrives on its own thread. Disposing disposes whichever is
    ///   subscribed. Thread-safe.
    public func ifEmpty(switchTo other: Maybe<Element>) -> Maybe<Element> {
        Maybe(unchecked: primitiveSequence.source.ifEmpty(switchTo: other.source))
    }

    /// Continues with `other` when this `Maybe` completes without an element.
    ///
    /// - Parameter other: Subscribed only after an empty completion.
    /// - Returns: A `Single` of this `Maybe`'s element, or of `other`'s outcome.
    /// - Note: `other`'s outcome arrives on its own thread. Disposing disposes whichever is
    ///   subscribed. Thread-safe.
    public func ifEmpty(switchTo other: Single<Element>) -> Single<Element> {
        Single(unchecked: primitiveSequence.source.ifEmpty(switchTo: other.source))
    }
}
