/// The event a `Completable` delivers.
public enum CompletableEvent {
    /// Termination with an error.
    case error(Swift.Error)
    /// Successful termination.
    case completed
}

extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// The function handed to `create`, which delivers the one event.
    public typealias CompletableObserver = @Sendable (CompletableEvent) -> Void

    /// Creates a `Completable` from a subscribe function.
    ///
    /// - Parameter subscribe: Receives the `completable` function; call it once with `.completed`
    ///   or `.error(error)`, and return what to release on dispose. Later calls are ignored.
    /// - Returns: A cold `Completable`.
    /// - Note: The event is delivered on the thread that calls the function. Thread-safe.
    public static func create(subscribe: @escaping @Sendable (@escaping CompletableObserver) -> Disposable) -> Completable {
        Completable(unchecked: Observable.create { observer in
            subscribe { event in
                switch event {
                case .completed: observer.onCompleted()
                case .error(let error): observer.onError(error)
                }
            }
        })
    }

    /// A `Completable` that completes at once.
    public static func empty() -> Completable {
        Completable(unchecked: .empty())
    }

    /// Returns itself.
    public func asCompletable() -> Completable {
        primitiveSequence
    }

    /// Subscribes with closures for completion, failure and disposal.
    ///
    /// - Parameters:
    ///   - onCompleted: Called once if the work succeeds.
    ///   - onError: Called once with the error if it fails.
    ///   - onDisposed: Called once when the subscription ends: after the event or on dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the event arrives on. Thread-safe.
    public func subscribe(
        onCompleted: (@Sendable () -> Void)? = nil,
        onError: (@Sendable (Swift.Error) -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> Disposable {
        primitiveSequence.source.subscribe(onNext: nil, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes with one closure that receives the event.
    ///
    /// - Parameter observer: Called once with `.completed` or `.error`.
    /// - Returns: The subscription; disposing it cancels the work.
    /// - Note: `observer` runs on the thread the event arrives on. Thread-safe.
    public func subscribe(_ observer: @escaping @Sendable (CompletableEvent) -> Void) -> Disposable {
        subscribe(onCompleted: { observer(.completed) }, onError: { observer(.error($0)) })
    }

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
        let weak = WeakHandlers(object)
        return subscribe(onCompleted: weak.bind(onCompleted), onError: weak.bind(onError), onDisposed: weak.bind(onDisposed))
    }

    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: A `Completable` that completes when `second` does, or fails with the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on. The same as
    ///   `andThen(_:)`: this one's subscription is released before `second` is subscribed.
    public func concat(_ second: Completable) -> Completable {
        andThen(second)
    }

    /// Runs the `Completable`s one after the other, each once the previous one completed.
    ///
    /// - Parameter sources: The `Completable`s, in order; none completes at once.
    /// - Returns: A `Completable` that completes after the last one, and fails as soon as one fails
    ///   (the later ones are then never subscribed).
    /// - Note: Each is subscribed on the thread the previous one completed on, in constant stack
    ///   depth. Thread-safe.
    public static func concat(_ sources: Completable...) -> Completable {
        concat(sources)
    }

    /// Runs the `Completable`s of a sequence one after the other, each once the previous one
    /// completed.
    ///
    /// - Parameter sources: The `Completable`s, in order; read once, when this is called, so it
    ///   must be finite. An empty sequence completes at once.
    /// - Returns: A `Completable` that completes after the last one, and fails as soon as one fails
    ///   (the later ones are then never subscribed).
    /// - Note: Each is subscribed on the thread the previous one completed on, in constant stack
    ///   depth. Thread-safe.
    public static func concat<Sources: Sequence>(_ sources: Sources) -> Completable
    where Sources.Element == Completable {
        Completable(unchecked: Observable.concat(sources.map(\.source)))
    }

    /// Runs the `Completable`s at once and completes when all have completed. As in RxSwift, `zip`
    /// of `Completable`s is `merge`.
    ///
    /// - Parameter sources: The `Completable`s, all subscribed at once; none completes at once.
    /// - Returns: A `Completable` that completes once every one has, and fails as soon as one fails,
    ///   disposing (cancelling) the others.
    /// - Note: The event arrives on the thread of the one that finished last (or failed first).
    ///   Thread-safe.
    public static func zip(_ sources: Completable...) -> Completable {
        merge(sources)
    }

    /// `zip(_:)` of the `Completable`s of a collection; an empty collection completes at once.
    public static func zip<Sources: Collection>(_ sources: Sources) -> Completable
    where Sources.Element == Completable {
        merge(sources)
    }

    /// The same as `zip(_:)`: runs the `Completable`s at once and completes when all have.
    public static func merge(_ sources: Completable...) -> Completable {
        merge(sources)
    }

    /// The same as `zip(_:)`, for the `Completable`s of a collection; an empty collection completes
    /// at once.
    public static func merge<Sources: Collection>(_ sources: Sources) -> Completable
    where Sources.Element == Completable {
        Completable(unchecked: Observable.merge(sources.map(\.source)))
    }
}

extension ObservableType where Element == Never {
    /// Converts a sequence without elements to a `Completable`.
    public func asCompletable() -> Completable {
        Completable(unchecked: asObservable())
    }
}

extension ObservableType {
    /// Converts to a `Completable` that ignores the elements and keeps the termination.
    ///
    /// - Returns: A `Completable` that completes or fails when this sequence does.
    public func asCompletable() -> Completable {
        Completable(unchecked: ignoreElements())
    }
}

extension PrimitiveSequence where Trait: ElementTrait {
    /// Converts to a `Completable` that ignores the element and keeps the termination.
    ///
    /// - Returns: A `Completable` that completes when this sequence succeeds (or a `Maybe`
    ///   completes empty), and fails when it fails.
    public func asCompletable() -> Completable {
        source.asCompletable()
    }
}
