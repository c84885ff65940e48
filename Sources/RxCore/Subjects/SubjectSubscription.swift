import Synchronization

/// What a subject does when one of its subscriptions is disposed.
protocol SubjectObserverRemoving: AnyObject, Sendable {
    /// Forgets the observer registered under `key`; does nothing if it is already gone.
    func removeObserver(forKey key: Int)
}

/// One observer's subscription to a subject: the disposable `subscribe` returns, and the handle
/// through which the subject delivers.
///
/// The registry holds this non-generic base, so that a subject's hot path touches no generic
/// struct or enum type (each of which would cost a metadata lookup per event in unspecialized
/// code). Delivery checks the `disposed` flag before every event, so once `dispose()` has returned
/// on a thread, that thread never delivers to the observer again, even from a snapshot of observers
/// taken before (an observer that disposes another in its `onNext`, say).
// @unchecked Sendable: `key` and `owner` are immutable; `disposed` is atomic.
class SubjectSubscriptionBase: Cancelable, @unchecked Sendable {
    let key: Int
    // The subject's remover (its state), not the subject: a strong reference to the subject would
    // keep one that nothing else references alive for as long as it has a subscriber (its registry
    // holds this subscription), and a weak one would give every subject a side table, which makes
    // each retain of it take the slow path.
    private let owner: any SubjectObserverRemoving
    private let disposed = Atomic<Bool>(false)

    init(key: Int, owner: SubjectObserverRemoving) {
        self.key = key
        self.owner = owner
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    final var isDisposed: Bool {
        disposed.load(ordering: .acquiring)
    }

    /// The per-event check: program order is all a thread needs to see its own dispose.
    @inline(__always)
    final var isDisposedRelaxed: Bool {
        disposed.load(ordering: .relaxed)
    }

    final func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        owner.removeObserver(forKey: key)
    }

    /// Called by the owning subject's deinit on every subscription still registered: no event can
    /// reach it any more, so its observer is told (it may hold this subscription as its upstream,
    /// a cycle nothing else would break).
    func ownerDidDeinit() {}
}

/// The subscription of one observer of elements of type `Element`.
// @unchecked Sendable: adds only the immutable `observer` to its base.
final class SubjectSubscription<Element>: SubjectSubscriptionBase, @unchecked Sendable {
    let observer: ObserverNode<Element>

    init(key: Int, observer: ObserverNode<Element>, owner: SubjectObserverRemoving) {
        self.observer = observer
        super.init(key: key, owner: owner)
    }

    override func ownerDidDeinit() {
        // The observer lets go of this subscription if it holds it as its upstream (the cycle);
        // `observer` itself stays a constant, read without a retain on every delivery.
        observer.sourceWasAbandoned()
    }

    /// Sends `event` unless the subscription was disposed.
    func deliver(_ event: Event<Element>) {
        guard !isDisposedRelaxed else { return }
        switch event {
        case .next(let element): observer.onNext(element)
        case .error(let error): observer.onError(error)
        case .completed: observer.onCompleted()
        }
    }
}

/// Where a subject is in its life.
enum SubjectLifecycle {
    case active
    case terminated(Termination)
    case disposed

    var isActive: Bool {
        if case .active = self { return true }
        return false
    }
}

extension ContiguousArray where Element == SubjectSubscriptionBase {
    /// Lets every subscription of a subject that is being deinitialised go of its observer.
    func ownerDidDeinit() {
        for subscription in self {
            subscription.ownerDidDeinit()
        }
    }

    /// Sends `element` to every observer of a snapshot; called after unlocking.
    @inline(__always)
    func deliverNext<Value>(_ element: Value) {
        // The snapshot keeps every subscription alive while this runs, so the loop borrows them
        // instead of retaining each one.
        withUnsafeBufferPointer { subscriptions in
            for index in subscriptions.indices {
                Unmanaged.passUnretained(subscriptions[index])._withUnsafeGuaranteedRef { subscription in
                    guard !subscription.isDisposedRelaxed else { return }
                    // Every subscription of a subject of `Value` is a SubjectSubscription<Value>.
                    unsafeDowncast(subscription, to: SubjectSubscription<Value>.self).observer.onNext(element)
                }
            }
        }
    }

    /// Sends a terminal event to every observer of a snapshot; called after unlocking.
    func deliverTerminal<Value>(_ termination: Termination, of _: Value.Type) {
        let event = termination.event(of: Value.self)
        for subscription in self {
            unsafeDowncast(subscription, to: SubjectSubscription<Value>.self).deliver(event)
        }
    }
}
