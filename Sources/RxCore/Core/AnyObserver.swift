/// A type-erased observer, as handed to `Observable.create`.
///
/// - Note: Calls go straight to the observer behind it, on the caller's thread. The sender must
///   respect the grammar (`next* (error | completed)?`); events after a terminal one are dropped by
///   the sequences of this module.
public struct AnyObserver<Element>: ObserverType, @unchecked Sendable {
    // @unchecked Sendable: the only stored property is a node, itself Sendable by its invariant.
    @usableFromInline
    let node: ObserverNode<Element>

    @usableFromInline
    init(node: ObserverNode<Element>) {
        self.node = node
    }

    /// Wraps `observer`.
    public init<Observer: ObserverType>(_ observer: Observer) where Observer.Element == Element {
        if let erased = observer as? AnyObserver<Element> {
            self.node = erased.node
        } else {
            self.node = ForwardingObserverNode(observer)
        }
    }

    /// Wraps a closure that receives every event.
    public init(eventHandler: @escaping @Sendable (Event<Element>) -> Void) {
        self.node = ClosureObserverNode(eventHandler)
    }

    /// Sends `event` to the observer.
    @inlinable
    public func on(_ event: Event<Element>) {
        node.on(event)
    }

    /// Sends `.next(element)`.
    @inlinable
    public func onNext(_ element: Element) {
        node.onNext(element)
    }

    /// Sends `.error(error)`.
    @inlinable
    public func onError(_ error: Error) {
        node.onError(error)
    }

    /// Sends `.completed`.
    @inlinable
    public func onCompleted() {
        node.onCompleted()
    }

    /// Returns itself.
    public func asObserver() -> AnyObserver<Element> {
        self
    }
}
