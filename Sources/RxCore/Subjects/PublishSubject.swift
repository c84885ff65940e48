/// A subject that sends each event to the observers subscribed at the time.
///
/// Late subscribers get no earlier elements; after a terminal event every new subscriber receives
/// that terminal event at once. Events sent after a terminal event, or after `dispose()`, are
/// ignored; subscribing to a disposed subject fails with `RxError.disposed`.
///
/// - Note: Events go out on the thread that sends them, to each observer in subscription order.
///   Senders must not call `on`/`onNext` concurrently (the Rx grammar); subscribing and disposing
///   are thread-safe at any time, also while an event is being sent. Once a subscription's
///   `dispose()` has returned on a thread, that thread never delivers to it again.
// @unchecked Sendable: all mutable state lives in one LockedState.
public final class PublishSubject<Element>: Observable<Element>, @unchecked Sendable,
    SubjectType, ObserverType, Cancelable {
    /// The observer side is the subject itself.
    public typealias Observer = PublishSubject<Element>

    // Non-generic on purpose: the hot path then needs no generic metadata lookup.
    private let state = LockedState<PublishSubjectState>.make(PublishSubjectState())
    /// What subscriptions hold to remove themselves (see `SubjectSubscriptionBase.owner`).
    private let remover: PublishSubjectRemover

    /// Creates a subject with no observers.
    public override init() {
        remover = PublishSubjectRemover(state: state)
        super.init()
        Resources.incrementTotal()
    }

    deinit {
        state.withLock { $0.observers.removeAll() }.ownerDidDeinit()
        Resources.decrementTotal()
    }

    /// Whether at least one observer is subscribed.
    public var hasObservers: Bool {
        state.withLock { $0.observers.count > 0 }
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        state.withLock { if case .disposed = $0.lifecycle { return true } else { return false } }
    }

    /// Sends `event` to the current observers.
    public func on(_ event: Event<Element>) {
        switch event {
        case .next(let element): onNext(element)
        case .error(let error): onError(error)
        case .completed: onCompleted()
        }
    }

    /// Sends `element` to the current observers; ignored after a terminal event or dispose.
    public func onNext(_ element: Element) {
        let observers = state.withLock { state -> SubjectSnapshot in
            state.lifecycle.isActive ? state.observers.snapshot() : []
        }
        observers.deliverNext(element)
    }

    /// Terminates with `error`: the current and every later observer receive it.
    public func onError(_ error: Error) {
        terminate(.error(error))
    }

    /// Completes: the current and every later observer receive `completed`.
    public func onCompleted() {
        terminate(.completed)
    }

    /// Returns the subject itself.
    public func asObserver() -> PublishSubject<Element> {
        self
    }

    /// Drops every observer (they receive nothing more) and refuses later events and subscribers.
    public func dispose() {
        let dropped = state.withLock { state -> SubjectSnapshot in
            state.lifecycle = .disposed
            return state.observers.removeAll()
        }
        // Released here, after the lock: their deinit may run user code.
        _ = dropped
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let outcome = state.withLock { state -> Result<SubjectSubscriptionBase, SubjectRejection> in
            switch state.lifecycle {
            case .disposed:
                return .failure(.disposed)
            case .terminated(let termination):
                return .failure(.terminated(termination))
            case .active:
                let subscription = SubjectSubscription(key: state.observers.makeKey(), observer: observer, owner: remover)
                state.observers.insert(subscription)
                return .success(subscription)
            }
        }
        switch outcome {
        case .success(let subscription):
            return subscription
        case .failure(let rejection):
            observer.on(rejection.event(of: Element.self))
            return NopDisposable.shared
        }
    }

    private func terminate(_ termination: Termination) {
        let observers = state.withLock { state -> SubjectSnapshot in
            guard state.lifecycle.isActive else { return [] }
            state.lifecycle = .terminated(termination)
            return state.observers.removeAll()
        }
        observers.deliverTerminal(termination, of: Element.self)
    }
}


/// The state of a `PublishSubject`.
struct PublishSubjectState {
    var observers = SubjectRegistry()
    var lifecycle = SubjectLifecycle.active
}

/// Why a subject did not register a subscriber.
enum SubjectRejection: Error {
    case disposed
    case terminated(Termination)

    /// The one event the rejected subscriber receives.
    func event<Element>(of _: Element.Type) -> Event<Element> {
        switch self {
        case .disposed: return .error(RxError.disposed)
        case .terminated(let termination): return termination.event()
        }
    }
}
