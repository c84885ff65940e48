/// A subject that holds a current value: each new subscriber receives it first, then every later
/// event.
///
/// After a terminal event, new subscribers receive only that terminal event (not the value), as in
/// RxSwift. Events sent after a terminal event, or after `dispose()`, are ignored; subscribing to a
/// disposed subject fails with `RxError.disposed`.
///
/// - Note: Events go out on the thread that sends them, in subscription order; a new subscriber
///   receives the current value on the subscribing thread, and events sent while it does so are
///   queued for it and delivered in order after it, never concurrently. Senders must not call
///   `on`/`onNext` concurrently; subscribing, disposing and `value()` are thread-safe at any time.
// @unchecked Sendable: all mutable state lives in one LockedState.
public final class BehaviorSubject<Element>: Observable<Element>, @unchecked Sendable,
    SubjectType, ObserverType, Cancelable {
    /// The observer side is the subject itself.
    public typealias Observer = BehaviorSubject<Element>

    private let state: LockedState<ReplayingSubjectState>
    /// What subscriptions hold to remove themselves (see `SubjectSubscriptionBase.owner`).
    private let remover: ReplayingSubjectRemover<Element>

    /// Creates a subject whose current value is `value`.
    public init(value: Element) {
        state = .make(ReplayingSubjectState(store: BehaviorStore(value: value)))
        remover = ReplayingSubjectRemover(state: state)
        super.init()
        Resources.incrementTotal()
    }

    deinit {
        state.withLock { $0.observers.removeAll() }.ownerDidDeinit()
        Resources.decrementTotal()
    }

    /// The current value: the initial one or the last element sent.
    ///
    /// - Returns: The value; still the last element after `completed`.
    /// - Throws: The error the subject terminated with, or `RxError.disposed` after `dispose()`.
    /// - Note: Thread-safe.
    public func value() throws -> Element {
        let result = state.withLock { state -> Result<Element, Error> in
            switch state.lifecycle {
            case .disposed: return .failure(RxError.disposed)
            case .terminated(.error(let error)): return .failure(error)
            case .active, .terminated(.completed):
                return .success(unsafeDowncast(state.store, to: BehaviorStore<Element>.self).value)
            }
        }
        return try result.get()
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

    /// Makes `element` the current value and sends it to the observers; ignored after a terminal
    /// event or dispose.
    public func onNext(_ element: Element) {
        state.onNext(element)
    }

    /// Terminates with `error`: the current and every later observer receive it.
    public func onError(_ error: Error) {
        state.terminate(.error(error), of: Element.self)
    }

    /// Completes: the current and every later observer receive `completed`.
    public func onCompleted() {
        state.terminate(.completed, of: Element.self)
    }

    /// Returns the subject itself.
    public func asObserver() -> BehaviorSubject<Element> {
        self
    }

    /// Drops every observer (they receive nothing more) and refuses later events and subscribers.
    public func dispose() {
        state.dispose(of: Element.self)
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        state.subscribe(observer, owner: remover)
    }
}


/// The current value of a `BehaviorSubject`; reached only under its lock.
final class BehaviorStore<Element>: ReplayingStore<Element> {
    var value: Element

    init(value: Element) {
        self.value = value
    }

    override func replay() -> ContiguousArray<Event<Element>> {
        [.next(value)]
    }

    override func replayAfterTermination() -> ContiguousArray<Event<Element>> {
        []
    }

    override func record(_ element: Element) {
        value = element
    }
}
