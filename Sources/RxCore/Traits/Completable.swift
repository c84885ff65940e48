/// The event a `Completable` delivers.
public enum CompletableEvent {
    /// Termination with an error.
    case error(Swift.Error)
    /// Successful termination.
    case completed
}

/// A sequence that only completes or fails: work whose result is its success (a DELETE request, a
/// cache flush).
///
/// - Note: A cold description of work, like `Observable`: each subscription runs it. Thread-safe to
///   subscribe from any thread; the event arrives on the thread the work finishes on.
public struct Completable: ObservableConvertibleType, Sendable {
    /// A `Completable` has no elements.
    public typealias Element = Never

    /// The function handed to `create`, which delivers the one event.
    public typealias CompletableObserver = @Sendable (CompletableEvent) -> Void

    let source: Observable<Never>

    /// Wraps a sequence known to have no elements.
    init(unchecked source: Observable<Never>) {
        self.source = source
    }

    /// Creates a `Completable` from a subscribe function.
    ///
    /// - Parameter subscribe: Receives the `completable` function; call it once with `.completed`
    ///   or `.error(error)`, and return what to release on dispose. Later calls are ignored.
    /// - Returns: A cold `Completable`.
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

    /// A `Completable` that fails at once with `error`.
    public static func error(_ error: Swift.Error) -> Completable {
        Completable(unchecked: .error(error))
    }

    /// A `Completable` that never terminates (until disposed).
    public static func never() -> Completable {
        Completable(unchecked: .never())
    }

    /// The sequence as an `Observable` with no elements.
    public func asObservable() -> Observable<Never> {
        source
    }

    /// Returns itself.
    public func asCompletable() -> Completable {
        self
    }

    /// Subscribes with closures for completion, failure and disposal.
    ///
    /// - Parameters:
    ///   - onCompleted: Called once if the work succeeds.
    ///   - onError: Called once with the error if it fails.
    ///   - onDisposed: Called once when the subscription ends: after the event or on dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the event arrives on.
    public func subscribe(
        onCompleted: (@Sendable () -> Void)? = nil,
        onError: (@Sendable (Swift.Error) -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> Disposable {
        source.subscribe(onNext: nil, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed)
    }

    /// Subscribes with one closure that receives the event.
    public func subscribe(_ observer: @escaping @Sendable (CompletableEvent) -> Void) -> Disposable {
        subscribe(onCompleted: { observer(.completed) }, onError: { observer(.error($0)) })
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

extension Single {
    /// Converts to a `Completable` that ignores the element and keeps success or failure.
    public func asCompletable() -> Completable {
        source.asCompletable()
    }
}
