/// A `PublishSubject` that only emits elements: it never fails nor completes, so a UI or a state
/// holder can keep it forever (RxRelay's `PublishRelay`).
///
/// Subscribers receive the elements accepted after they subscribed.
///
/// - Note: Elements go out on the thread that calls `accept(_:)`, to each subscriber in
///   subscription order. As with subjects, `accept(_:)` must not be called concurrently; subscribing
///   and disposing are thread-safe at any time.
public final class PublishRelay<Element>: ObservableType, Sendable {
    private let subject = PublishSubject<Element>()

    /// Creates a relay with no subscribers.
    public init() {}

    /// Sends `element` to the current subscribers.
    ///
    /// - Parameter element: The element to emit.
    /// - Note: Runs the subscribers on the calling thread; do not call concurrently.
    public func accept(_ element: Element) {
        subject.onNext(element)
    }

    /// Subscribes `observer`; it receives every element accepted from now on, and no terminal event.
    ///
    /// - Parameter observer: The observer of the elements.
    /// - Returns: The subscription; disposing it removes the observer.
    /// - Note: Thread-safe.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        subject.subscribe(observer)
    }

    /// The relay as an `Observable`, which never terminates.
    public func asObservable() -> Observable<Element> {
        subject
    }
}
