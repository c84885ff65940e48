extension ObservableType {
    /// Subscribes with closures for each kind of event.
    ///
    /// - Parameters:
    ///   - onNext: Called for each element.
    ///   - onError: Called once if the sequence fails.
    ///   - onCompleted: Called once if the sequence completes.
    ///   - onDisposed: Called once when the subscription ends: after a terminal event or on dispose.
    /// - Returns: The subscription; disposing it cancels the work and no handler runs afterwards.
    /// - Note: Handlers run on the thread the events arrive on. Thread-safe.
    public func subscribe(
        onNext: ((Element) -> Void)? = nil,
        onError: ((Error) -> Void)? = nil,
        onCompleted: (() -> Void)? = nil,
        onDisposed: (() -> Void)? = nil
    ) -> Disposable {
        let subscriber = ClosureSubscriber(
            onNext: onNext, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed
        )
        subscriber.setUpstream(asObservable().subscribe(subscriber))
        return subscriber
    }

    /// Subscribes with one closure that receives every event.
    public func subscribe(_ on: @escaping (Event<Element>) -> Void) -> Disposable {
        subscribe(
            onNext: { on(.next($0)) },
            onError: { on(.error($0)) },
            onCompleted: { on(.completed) }
        )
    }
}

/// The terminal observer behind `subscribe(onNext:onError:onCompleted:onDisposed:)`.
///
/// It is also the disposable handed to the user, so one object serves a whole subscription's tail.
/// The handlers are dropped on dispose (which follows every terminal event), as RxSwift does: a
/// finished or disposed subscription kept in a bag must not keep alive what its closures capture
/// (`subscribe(onNext: { self... }).disposed(by: bag)` would otherwise be a cycle through the bag).
// @unchecked Sendable: the handlers live in one LockedState; the lifecycle word orders terminal
// events and dispose.
final class ClosureSubscriber<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    private struct Handlers {
        let onNext: ((Element) -> Void)?
        let onError: ((Error) -> Void)?
        let onCompleted: (() -> Void)?
        let onDisposed: (() -> Void)?
    }

    private let handlers: LockedState<Handlers?>

    init(
        onNext: ((Element) -> Void)?,
        onError: ((Error) -> Void)?,
        onCompleted: (() -> Void)?,
        onDisposed: (() -> Void)?
    ) {
        handlers = .make(Handlers(onNext: onNext, onError: onError, onCompleted: onCompleted, onDisposed: onDisposed))
        super.init()
    }

    override func onNext(_ element: Element) {
        if !isStoppedOrDisposed, let handler = handlers.withLock({ $0?.onNext }) {
            handler(element)
        }
    }

    override func onError(_ error: Error) {
        if claimTerminal() {
            handlers.withLock { $0?.onError }?(error)
            dispose()
        }
    }

    override func onCompleted() {
        if claimTerminal() {
            handlers.withLock { $0?.onCompleted }?()
            dispose()
        }
    }

    override func didDispose() {
        // Taken out under the lock, released (and `onDisposed` called) after it.
        let taken = handlers.withLock { handlers -> Handlers? in
            defer { handlers = nil }
            return handlers
        }
        taken?.onDisposed?()
    }
}
