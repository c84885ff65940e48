extension ObservableType {
    /// Subscribes with closures for each kind of event.
    ///
    /// - Parameters:
    ///   - onNext: Called for each element.
    ///   - onError: Called once if the sequence fails. If nil, the error goes to
    ///     `Hooks.defaultErrorHandler` (with the call stack of this call, if
    ///     `Hooks.recordCallStackOnError` is true), as in RxSwift.
    ///   - onCompleted: Called once if the sequence completes.
    ///   - onDisposed: Called once when the subscription ends: after a terminal event or on dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the events arrive on. Thread-safe.
    @inlinable
    public func subscribe(
        onNext: (@Sendable (Element) -> Void)? = nil,
        onError: (@Sendable (Error) -> Void)? = nil,
        onCompleted: (@Sendable () -> Void)? = nil,
        onDisposed: (@Sendable () -> Void)? = nil
    ) -> Disposable {
        ClosureSubscriber(
            onNext: onNext,
            onError: onError ?? Hooks.unhandledErrorHandler(),
            onCompleted: onCompleted,
            onDisposed: onDisposed
        )
        .subscribe(to: asObservable())
    }

    /// Subscribes with one closure that receives every event.
    public func subscribe(_ on: @escaping @Sendable (Event<Element>) -> Void) -> Disposable {
        subscribe(
            onNext: { on(.next($0)) },
            onError: { on(.error($0)) },
            onCompleted: { on(.completed) }
        )
    }
}

/// The terminal observer behind `subscribe(onNext:onError:onCompleted:onDisposed:)`.
///
/// Its handlers are constants, so an event costs one atomic load and the call; the user holds a
/// `SubscriptionHandle`, which lets go of this subscriber (and so of the closures) when the
/// subscription ends.
@usableFromInline
// @unchecked Sendable: the handlers are immutable; the lifecycle word orders terminal events and
// dispose.
final class ClosureSubscriber<Element>: HandledSubscriber<Element>, @unchecked Sendable {
    @usableFromInline
    let nextHandler: (@Sendable (Element) -> Void)?
    @usableFromInline
    let errorHandler: (@Sendable (Error) -> Void)?
    @usableFromInline
    let completedHandler: (@Sendable () -> Void)?
    @usableFromInline
    let disposedHandler: (@Sendable () -> Void)?

    @inlinable
    init(
        onNext: (@Sendable (Element) -> Void)?,
        onError: (@Sendable (Error) -> Void)?,
        onCompleted: (@Sendable () -> Void)?,
        onDisposed: (@Sendable () -> Void)?
    ) {
        nextHandler = onNext
        errorHandler = onError
        completedHandler = onCompleted
        disposedHandler = onDisposed
        super.init()
    }

    override func onNext(_ element: Element) {
        if !isStoppedOrDisposed {
            nextHandler?(element)
        }
    }

    override func onError(_ error: Error) {
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
