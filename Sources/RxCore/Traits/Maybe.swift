/// The event a `Maybe` delivers: one element, an error, or completion without an element.
public enum MaybeEvent<Element> {
    /// The one element; the sequence then completes.
    case success(Element)
    /// Termination with an error.
    case error(Swift.Error)
    /// Termination without an element.
    case completed
}

/// A sequence of at most one element: an element, completion without one, or an error — the shape
/// of a lookup that may find nothing (a cache read, a `404` taken as "absent").
///
/// - Note: Like `Observable`, a `Maybe` is a cold description of work: each subscription runs it.
///   Thread-safe to subscribe from any thread; the event arrives on the thread the work finishes on.
public struct Maybe<Element>: ObservableConvertibleType, Sendable {
    /// The function handed to `create`, which delivers the one event.
    public typealias MaybeObserver = @Sendable (MaybeEvent<Element>) -> Void

    let source: Observable<Element>

    /// Wraps an observable already known to emit at most one element; see `asMaybe()` for one that
    /// is checked.
    init(unchecked source: Observable<Element>) {
        self.source = source
    }

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

    /// The sequence as an `Observable` of at most one element, then completion, or an error.
    public func asObservable() -> Observable<Element> {
        source
    }

    /// Returns itself.
    public func asMaybe() -> Maybe<Element> {
        self
    }

    /// Subscribes with closures for success, error, completion without an element, and disposal.
    ///
    /// - Parameters:
    ///   - onSuccess: Called once with the element.
    ///   - onError: Called once with the error.
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
        MaybeSubscriber<Element>(
            onSuccess: onSuccess, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed
        )
        .subscribe(to: source)
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
}

/// The terminal observer of a `Maybe`: success on the first element (which ends the subscription),
/// completion or error otherwise. Handlers are constants; the user's `SubscriptionHandle` lets go
/// of them when the subscription ends.
// @unchecked Sendable: the handlers are immutable; the lifecycle word orders the one event and dispose.
final class MaybeSubscriber<Element>: HandledSubscriber<Element>, @unchecked Sendable {
    private let successHandler: (@Sendable (Element) -> Void)?
    private let errorHandler: (@Sendable (Swift.Error) -> Void)?
    private let completedHandler: (@Sendable () -> Void)?
    private let disposedHandler: (@Sendable () -> Void)?

    init(
        onSuccess: (@Sendable (Element) -> Void)?,
        onError: (@Sendable (Swift.Error) -> Void)?,
        onCompleted: (@Sendable () -> Void)?,
        onDisposed: (@Sendable () -> Void)?
    ) {
        successHandler = onSuccess
        errorHandler = onError
        completedHandler = onCompleted
        disposedHandler = onDisposed
        super.init()
    }

    override func onNext(_ element: Element) {
        if claimTerminal() {
            successHandler?(element)
            dispose()
        }
    }

    override func onError(_ error: Swift.Error) {
        if claimTerminal() {
            errorHandler?(error)
            dispose()
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            completedHandler?()
            dispose()
        }
    }

    override func didDispose() {
        disposedHandler?()
        super.didDispose()
    }
}
