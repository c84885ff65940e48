/// The event a `Single` delivers: one element, or an error.
public typealias SingleEvent<Element> = Result<Element, Error>

/// A sequence of exactly one element or an error — the shape of a request/response call.
///
/// - Note: Like `Observable`, a `Single` is a cold description of work: each subscription runs it.
///   Thread-safe to subscribe from any thread.
public struct Single<Element>: ObservableConvertibleType, Sendable {
    /// The function handed to `create`, which delivers the one event.
    public typealias SingleObserver = @Sendable (SingleEvent<Element>) -> Void

    @usableFromInline
    let source: Observable<Element>

    /// Wraps an observable already known to emit one element or an error; see `asSingle()` for one
    /// that is checked.
    @usableFromInline
    init(unchecked source: Observable<Element>) {
        self.source = source
    }

    /// Creates a `Single` from a subscribe function.
    ///
    /// - Parameter subscribe: Receives the `single` function; call it once with `.success(value)`
    ///   or `.failure(error)`, and return what to release on dispose. Later calls are ignored.
    @inlinable
    public static func create(subscribe: @escaping @Sendable (@escaping SingleObserver) -> Disposable) -> Single<Element> {
        Single(unchecked: Observable.create { observer in
            subscribe { event in
                switch event {
                case .success(let element):
                    observer.onNext(element)
                    observer.onCompleted()
                case .failure(let error):
                    observer.onError(error)
                }
            }
        })
    }

    /// `create` for this package's own adapters whose closure captures values that are not
    /// `Sendable`; see `Observable.createCapturingNonSendable`.
    package static func createCapturingNonSendable(
        subscribe: @escaping (@escaping SingleObserver) -> Disposable
    ) -> Single<Element> {
        Single(unchecked: Observable.createCapturingNonSendable { observer in
            subscribe { event in
                switch event {
                case .success(let element):
                    observer.onNext(element)
                    observer.onCompleted()
                case .failure(let error):
                    observer.onError(error)
                }
            }
        })
    }

    /// The sequence as an `Observable` of one element (then completion) or an error.
    public func asObservable() -> Observable<Element> {
        source
    }

    /// Returns itself.
    public func asSingle() -> Single<Element> {
        self
    }

    /// Subscribes with closures for success, failure and disposal.
    ///
    /// - Parameters:
    ///   - onSuccess: Called once with the element.
    ///   - onFailure: Called once with the error.
    ///   - onDisposed: Called once when the subscription ends: after the event or on dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the event arrives on.
    @inlinable
    public func subscribe(
        onSuccess: (@Sendable (Element) -> Void)? = nil,
        onFailure: (@Sendable (Error) -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> Disposable {
        SingleSubscriber<Element>(onSuccess: onSuccess, onFailure: onFailure, onDisposed: onDisposed)
            .subscribe(to: source)
    }

    /// Subscribes with one closure that receives the result.
    public func subscribe(_ observer: @escaping @Sendable (SingleEvent<Element>) -> Void) -> Disposable {
        subscribe(onSuccess: { observer(.success($0)) }, onFailure: { observer(.failure($0)) })
    }
}

/// The terminal observer of a `Single`: success on the first element, failure on an error, and
/// `RxError.noElements` if the source completes empty. Handlers are constants (no lock per event);
/// the user's `SubscriptionHandle` lets go of them when the subscription ends.
@usableFromInline
// @unchecked Sendable: the handlers are immutable; the lifecycle word orders the one event and dispose.
final class SingleSubscriber<Element>: HandledSubscriber<Element>, @unchecked Sendable {
    @usableFromInline
    let successHandler: (@Sendable (Element) -> Void)?
    @usableFromInline
    let failureHandler: (@Sendable (Error) -> Void)?
    @usableFromInline
    let disposedHandler: (@Sendable () -> Void)?

    @inlinable
    init(onSuccess: (@Sendable (Element) -> Void)?, onFailure: (@Sendable (Error) -> Void)?, onDisposed: (@Sendable () -> Void)?) {
        successHandler = onSuccess
        failureHandler = onFailure
        disposedHandler = onDisposed
        super.init()
    }

    override func onNext(_ element: Element) {
        if claimTerminal() {
            successHandler?(element)
            dispose()
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            failureHandler?(error)
            dispose()
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            failureHandler?(RxError.noElements)
            dispose()
        }
    }

    override func didDispose() {
        disposedHandler?()
        super.didDispose()
    }
}
