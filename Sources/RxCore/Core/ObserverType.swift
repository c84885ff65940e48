/// Something that receives the events of a sequence.
///
/// Conformers implement `on(_:)`; `onNext`, `onError` and `onCompleted` are shorthands for it.
/// The sender guarantees the grammar `next* (error | completed)?` and never calls `on` concurrently.
public protocol ObserverType {
    /// The type of the elements received.
    associatedtype Element

    /// Receives one event.
    func on(_ event: Event<Element>)
}

extension ObserverType {
    /// Sends `.next(element)`.
    public func onNext(_ element: Element) {
        on(.next(element))
    }

    /// Sends `.error(error)`.
    public func onError(_ error: Error) {
        on(.error(error))
    }

    /// Sends `.completed`.
    public func onCompleted() {
        on(.completed)
    }

    /// Type-erases this observer.
    public func asObserver() -> AnyObserver<Element> {
        AnyObserver(self)
    }
}
