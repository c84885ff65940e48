/// A `ReplaySubject` that only emits elements: it never fails nor completes, so a UI or a state
/// holder can keep it forever (RxRelay's `ReplayRelay`).
///
/// Each new subscriber first receives the last elements accepted (up to the buffer size), then
/// every element accepted later. Create one with `create(bufferSize:)` or `createUnbound()`.
///
/// - Note: Elements go out on the thread that calls `accept(_:)`, to each subscriber in
///   subscription order; a new subscriber receives the replay on the subscribing thread. As with
///   subjects, `accept(_:)` must not be called concurrently; subscribing and disposing are
///   thread-safe at any time.
public final class ReplayRelay<Element>: ObservableType, Sendable {
    private let subject: ReplaySubject<Element>

    private init(subject: ReplaySubject<Element>) {
        self.subject = subject
    }

    /// Creates a relay that replays the last `bufferSize` elements to each new subscriber.
    ///
    /// - Parameter bufferSize: How many elements to keep; 0 or less keeps none (every subscriber
    ///   then gets only what is accepted after it subscribed). Nothing is allocated up front, so a
    ///   large size costs only the elements actually kept.
    /// - Returns: A new relay.
    public static func create(bufferSize: Int) -> ReplayRelay<Element> {
        ReplayRelay(subject: .create(bufferSize: bufferSize))
    }

    /// Creates a relay that replays every element it ever accepted to each new subscriber.
    ///
    /// - Returns: A new relay, whose memory grows with each element: keep the number of elements
    ///   reasonable.
    public static func createUnbound() -> ReplayRelay<Element> {
        ReplayRelay(subject: .createUnbound())
    }

    /// Buffers `element` and sends it to the current subscribers.
    ///
    /// - Parameter element: The element to emit.
    /// - Note: Runs the subscribers on the calling thread; do not call concurrently.
    public func accept(_ element: Element) {
        subject.onNext(element)
    }

    /// Subscribes `observer`; it receives the buffered elements, then every element accepted from
    /// now on, and no terminal event.
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
