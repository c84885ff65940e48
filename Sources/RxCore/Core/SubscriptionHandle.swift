import Synchronization

/// The disposable that `subscribe(onNext:...)` and `Single.subscribe(onSuccess:...)` hand out.
///
/// It owns its terminal subscriber until the subscription ends, then lets go of it: a finished or
/// disposed subscription kept in a `DisposeBag` does not keep alive what its closures capture
/// (`subscribe(onNext: { self... }).disposed(by: bag)` is no cycle once it ends), while the
/// subscriber itself keeps its closures as constants, so delivering an event takes no lock.
///
/// A subscription ends by dispose or by a terminal event, as in RxSwift: dropping the handle of a
/// live subscription neither disposes nor frees it.
// @unchecked Sendable: the only state is one atomic word that owns a retained subscriber.
final class SubscriptionHandle<Element>: Cancelable, @unchecked Sendable {
    private let subscriber = Atomic<Unmanaged<HandledSubscriber<Element>>?>(nil)

    init() {}

    /// Takes ownership of `subscriber` until `dispose()` or `release()`.
    func attach(_ subscriber: HandledSubscriber<Element>) {
        self.subscriber.store(Unmanaged.passRetained(subscriber), ordering: .releasing)
    }

    deinit {
        release()
    }

    /// Whether the subscription has ended (disposed, or finished with a terminal event).
    var isDisposed: Bool {
        subscriber.load(ordering: .acquiring) == nil
    }

    /// Disposes the subscription; idempotent, any thread.
    func dispose() {
        subscriber.exchange(nil, ordering: .acquiringAndReleasing)?.takeRetainedValue().dispose()
    }

    /// Lets go of the subscriber without disposing it again: it ended by itself.
    func release() {
        subscriber.exchange(nil, ordering: .acquiringAndReleasing)?.release()
    }
}

/// A terminal subscriber paired with a `SubscriptionHandle`; the pair hold each other until the
/// subscription ends, when the handle lets go.
// @unchecked Sendable: `handle` is immutable; the lifecycle word orders events and dispose.
class HandledSubscriber<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    private let handle = SubscriptionHandle<Element>()

    /// Subscribes to `source` and returns the handle to give the user.
    final func subscribe(to source: Observable<Element>) -> Disposable {
        handle.attach(self)
        setUpstream(source.subscribe(self))
        return handle
    }

    /// Subclasses run their `onDisposed` first, then call super.
    override func didDispose() {
        handle.release()
        super.didDispose()
    }
}
