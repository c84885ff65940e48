/// A subject that replays the last elements it received (up to a buffer size) to each new
/// subscriber, then sends it every later event.
///
/// After a terminal event, new subscribers receive the buffered elements and then that terminal
/// event. Events sent after a terminal event, or after `dispose()`, are ignored; subscribing to a
/// disposed subject fails with `RxError.disposed`. Create one with `create(bufferSize:)` or
/// `createUnbound()`.
///
/// - Note: Events go out on the thread that sends them, in subscription order; a new subscriber
///   receives the replay on the subscribing thread, and events sent while it does so are queued for
///   it and delivered in order after it, never concurrently. Senders must not call `on`/`onNext`
///   concurrently; subscribing and disposing are thread-safe at any time.
// @unchecked Sendable: all mutable state lives in one LockedState.
public final class ReplaySubject<Element>: Observable<Element>, @unchecked Sendable,
    SubjectType, ObserverType, Cancelable {
    /// The observer side is the subject itself.
    public typealias Observer = ReplaySubject<Element>

    private let state: LockedState<ReplayingSubjectState>
    /// What subscriptions hold to remove themselves (see `SubjectSubscriptionBase.owner`).
    private let remover: ReplayingSubjectRemover<Element>

    private init(bufferSize: Int) {
        state = .make(ReplayingSubjectState(store: ReplayBufferStore<Element>(capacity: bufferSize)))
        remover = ReplayingSubjectRemover(state: state)
        super.init()
        Resources.incrementTotal()
    }

    deinit {
        state.withLock { $0.observers.removeAll() }.ownerDidDeinit()
        Resources.decrementTotal()
    }

    /// Creates a subject that replays the last `bufferSize` elements.
    ///
    /// - Parameter bufferSize: How many elements to keep; 0 or less keeps none (a publish subject
    ///   that still replays its terminal event).
    /// - Returns: A new subject.
    public static func create(bufferSize: Int) -> ReplaySubject<Element> {
        ReplaySubject(bufferSize: bufferSize)
    }

    /// Creates a subject that replays every element it ever received.
    ///
    /// - Returns: A new subject, whose memory grows with each element.
    public static func createUnbound() -> ReplaySubject<Element> {
        ReplaySubject(bufferSize: Int.max)
    }

    /// Whether at least one observer is subscribed.
    public var hasObservers: Bool {
        state.withLock { $0.hasObservers }
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// Sends `event` to the current observers.
    public func on(_ event: Event<Element>) {
        switch event {
        case .next(let element): onNext(element)
        case .error(let error): onError(error)
        case .completed: onCompleted()
        }
    }

    /// Buffers `element` and sends it to the observers; ignored after a terminal event or dispose.
    public func onNext(_ element: Element) {
        state.onNext(element)
    }

    /// Terminates with `error`: the current observers receive it, later ones after the replay.
    public func onError(_ error: Error) {
        state.terminate(.error(error), of: Element.self)
    }

    /// Completes: the current observers receive `completed`, later ones after the replay.
    public func onCompleted() {
        state.terminate(.completed, of: Element.self)
    }

    /// Returns the subject itself.
    public func asObserver() -> ReplaySubject<Element> {
        self
    }

    /// Drops every observer and the buffer, and refuses later events and subscribers.
    public func dispose() {
        state.dispose(of: Element.self)
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        state.subscribe(observer, owner: remover)
    }
}


/// The replay buffer of a `ReplaySubject`; reached only under its lock.
final class ReplayBufferStore<Element>: ReplayingStore<Element> {
    private var buffer: ReplayBuffer<Element>

    init(capacity: Int) {
        buffer = ReplayBuffer(capacity: capacity)
    }

    override func replay() -> ContiguousArray<Event<Element>> {
        buffer.events()
    }

    override func record(_ element: Element) {
        buffer.append(element)
    }

    override func removeAll() -> Any {
        defer { buffer.removeAll() }
        return buffer
    }
}
