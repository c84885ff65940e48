/// A `BehaviorSubject` that only emits elements: it holds a current value, never fails nor
/// completes, so a UI or a state holder can keep it forever (RxRelay's `BehaviorRelay`).
///
/// Each new subscriber receives the current value first, then every value accepted later.
///
/// - Note: Values go out on the thread that calls `accept(_:)`, to each subscriber in subscription
///   order; a new subscriber receives the current value on the subscribing thread. As with subjects,
///   `accept(_:)` must not be called concurrently; subscribing, disposing and `value` are
///   thread-safe at any time.
public final class BehaviorRelay<Element>: ObservableType, Sendable {
    private let subject: BehaviorSubject<Element>

    /// Creates a relay whose current value is `value`.
    ///
    /// - Parameter value: The first current value, which every subscriber receives until the next
    ///   `accept(_:)`.
    public init(value: Element) {
        subject = BehaviorSubject(value: value)
    }

    /// The current value: the initial one or the last one accepted.
    ///
    /// - Note: Thread-safe.
    public var value: Element {
        do {
            return try subject.value()
        } catch {
            // The subject is private and is never sent a terminal event nor disposed.
            preconditionFailure("a BehaviorRelay's subject never terminates: \(error)")
        }
    }

    /// Makes `element` the current value and sends it to the current subscribers.
    ///
    /// - Parameter element: The new value.
    /// - Note: Runs the subscribers on the calling thread; do not call concurrently.
    public func accept(_ element: Element) {
        subject.onNext(element)
    }

    /// Subscribes `observer`; it receives the current value, then every value accepted from now on,
    /// and no terminal event.
    ///
    /// - Parameter observer: The observer of the values.
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
