import Synchronization

/// An observer that is also the `Disposable` of its own subscription and owns its upstream one.
///
/// Lifecycle, all in one atomic word so that the per-event check is a single load:
/// - `upstreamSet`: the upstream subscription has been stored in `upstream` (published with release);
/// - `stopped`: a terminal event went through (`claimTerminal()` returned true once);
/// - `disposed`: `dispose()` ran (exactly once; later calls do nothing).
///
/// Upstream may emit, even terminate, before `subscribe` returns its disposable; and `dispose()` may
/// race `setUpstream` from another thread. Whichever of the two comes second disposes the upstream,
/// so it is disposed exactly once and never leaks.
@usableFromInline
// @unchecked Sendable (inherited): `upstream` is written once before `upstreamSet` is published and
// read only by the single winner of the `disposed` bit, after an acquiring read of that flag.
class SubscriptionNode<Input>: ObserverNode<Input>, Cancelable, @unchecked Sendable {
    @usableFromInline static var upstreamSetFlag: Int { 1 }
    @usableFromInline static var stoppedFlag: Int { 2 }
    @usableFromInline static var disposedFlag: Int { 4 }

    @usableFromInline
    let lifecycle = Atomic<Int>(0)

    // Guarded by the protocol above, not by a lock: written by `setUpstream` before `upstreamSet` is
    // published, read and cleared only by whoever wins the `disposed` bit (or by `setUpstream` when
    // it saw `disposed` first). The lifecycle word orders every access, so the dynamic exclusivity
    // check would only cost time.
    @exclusivity(unchecked)
    private nonisolated(unsafe) var upstream: ClassDisposable?

    @usableFromInline
    override init() {
        super.init()
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    /// Whether `dispose()` has run.
    @inlinable
    public final var isDisposed: Bool {
        lifecycle.load(ordering: .relaxed) & Self.disposedFlag != 0
    }

    /// Whether this node accepts no more events: it was disposed or it passed on a terminal event.
    @inlinable
    final var isStoppedOrDisposed: Bool {
        lifecycle.load(ordering: .relaxed) & (Self.disposedFlag | Self.stoppedFlag) != 0
    }

    /// A node detaches when it stops or is disposed; `Sink` also asks its downstream.
    @usableFromInline
    override var isDetached: Bool { isStoppedOrDisposed }

    /// Marks the node stopped; true exactly once, and only if it was not disposed first.
    @inlinable
    final func claimTerminal() -> Bool {
        let old = lifecycle.bitwiseOr(Self.stoppedFlag, ordering: .acquiringAndReleasing).oldValue
        return old & (Self.stoppedFlag | Self.disposedFlag) == 0
    }

    /// Stores the subscription to upstream; disposes it at once if this node is already disposed.
    @usableFromInline
    final func setUpstream(_ disposable: ClassDisposable) {
        upstream = disposable
        let old = lifecycle.bitwiseOr(Self.upstreamSetFlag, ordering: .acquiringAndReleasing).oldValue
        if old & Self.disposedFlag != 0 {
            // `dispose()` ran before the slot was published, so it left the upstream to us.
            upstream = nil
            disposable.dispose()
        }
    }

    /// Disposes the upstream subscription and runs `didDispose()`; idempotent, any thread.
    public final func dispose() {
        let old = lifecycle.bitwiseOr(Self.disposedFlag, ordering: .acquiringAndReleasing).oldValue
        guard old & Self.disposedFlag == 0 else { return }
        if old & Self.upstreamSetFlag != 0 {
            let held = upstream
            upstream = nil
            held?.dispose()
        }
        didDispose()
    }

    /// Called once, after the upstream subscription was disposed. Subclasses release extra work here
    /// (timers, inner subscriptions) and call super.
    @usableFromInline
    func didDispose() {}

    /// Ends this node without disposing anything, because its only source was freed without
    /// terminating: lets go of the upstream (which holds this node as its observer: a cycle nothing
    /// else would break) and marks the node disposed. Returns false if it had already ended.
    final func abandonUpstream() -> Bool {
        let old = lifecycle.bitwiseOr(Self.disposedFlag, ordering: .acquiringAndReleasing).oldValue
        guard old & Self.disposedFlag == 0 else { return false }
        if old & Self.upstreamSetFlag != 0 {
            upstream = nil
        }
        return true
    }
}

/// A node that forwards to one downstream observer: the base of every operator sink.
///
/// `forwardNext` drops events after dispose; `forwardError`/`forwardCompleted` let exactly one
/// terminal event through and then dispose, which releases upstream and breaks the reference cycle
/// between this sink and its downstream.
@usableFromInline
// @unchecked Sendable: `downstream` is immutable; the lifecycle word is atomic.
class Sink<Input, Output>: SubscriptionNode<Input>, @unchecked Sendable {
    @usableFromInline
    let downstream: ObserverNode<Output>

    @usableFromInline
    init(downstream: ObserverNode<Output>) {
        self.downstream = downstream
        super.init()
    }

    @usableFromInline
    override var isDetached: Bool { isStoppedOrDisposed || downstream.isDetached }

    @inlinable
    final func forwardNext(_ element: Output) {
        if !isStoppedOrDisposed {
            downstream.onNext(element)
        }
    }

    @inlinable
    final func forwardError(_ error: Error) {
        if claimTerminal() {
            downstream.onError(error)
            dispose()
        }
    }

    @inlinable
    final func forwardCompleted() {
        if claimTerminal() {
            downstream.onCompleted()
            dispose()
        }
    }
}

/// Returns `node` as a `ClassDisposable` whose type is `type`, a metatype the caller already holds (a
/// constant resolved in specialized code). Erasing a node under its static generic type would look
/// that type's metadata up in the runtime on every subscription, in unspecialized code.
@inlinable @inline(__always)
func disposable(_ node: AnyObject, ofType type: any (AnyObject & Disposable).Type) -> ClassDisposable {
    func box<Node: AnyObject & Disposable>(_: Node.Type) -> ClassDisposable {
        unsafeDowncast(node, to: Node.self)
    }
    return box(type)
}
