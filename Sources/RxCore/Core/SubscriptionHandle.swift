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
@usableFromInline
// @unchecked Sendable: the only state is one atomic word that owns a retained subscriber.
final class SubscriptionHandle<Element>: Cancelable, @unchecked Sendable {
    // The retained subscriber as a raw pointer (`Unmanaged.toOpaque`): an atomic of a concrete
    // type, so that unspecialized code needs no generic metadata for `Unmanaged<HandledSubscriber<Element>>`.
    private let subscriber = Atomic<UnsafeMutableRawPointer?>(nil)

    @usableFromInline
    init() {}

    /// Takes ownership of `subscriber` until `dispose()` or `release()`.
    @usableFromInline
    func attach(_ subscriber: HandledSubscriber<Element>) {
        self.subscriber.store(Unmanaged.passRetained(subscriber).toOpaque(), ordering: .releasing)
    }

    deinit {
        release()
    }

    /// Whether the subscription has ended (disposed, or finished with a terminal event).
    @usableFromInline
    var isDisposed: Bool {
        subscriber.load(ordering: .acquiring) == nil
    }

    /// Disposes the subscription; idempotent, any thread.
    @usableFromInline
    func dispose() {
        guard let owned = subscriber.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        Unmanaged<HandledSubscriber<Element>>.fromOpaque(owned).takeRetainedValue().dispose()
    }

    /// Lets go of the subscriber without disposing it again: it ended by itself.
    @usableFromInline
    func release() {
        guard let owned = subscriber.exchange(nil, ordering: .acquiringAndReleasing) else { return }
        Unmanaged<HandledSubscriber<Element>>.fromOpaque(owned).release()
    }
}

/// A terminal subscriber paired with a `SubscriptionHandle`; the pair hold each other until the
/// subscription ends, when the handle lets go.
@usableFromInline
// @unchecked Sendable: `handle` is immutable; the lifecycle word orders events and dispose.
class HandledSubscriber<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    // Created here, in an inlinable init, so that a client specializing the subscriber also
    // instantiates the handle's metadata once, not by a lookup per subscription.
    @usableFromInline
    let handle: SubscriptionHandle<Element>

    @inlinable
    override init() {
        handle = SubscriptionHandle()
        super.init()
    }

    /// Subscribes to `source` and returns the handle to give the user. Inlinable so that wrapping
    /// the handle in the returned existential uses the client's cached metadata, not a lookup.
    @inlinable
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

    override func sourceWasAbandoned() {
        // Nothing can end this subscription any more; it stops keeping itself alive.
        if abandonUpstream() {
            handle.release()
        }
    }
}
