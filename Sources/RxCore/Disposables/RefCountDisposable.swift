import Synchronization

/// Disposes an underlying disposable only once its primary handle has been disposed and every
/// handle given out by `retain()` has been released (RxSwift's `RefCountDisposable`).
///
/// Use it when several parties share one resource and the owner wants to say "I am done" without
/// cutting the others off: the owner disposes the primary handle, each party disposes the handle
/// it retained, and whoever goes last disposes the resource.
///
/// - Note: Thread-safe. The underlying disposable is disposed exactly once, outside the lock, on
///   the thread of whichever call made the count reach zero.
public final class RefCountDisposable: Cancelable {
    private enum State {
        /// The underlying disposable is alive: `retained` handles are outstanding, and the primary
        /// handle was disposed if `isPrimaryDisposed`.
        case live(underlying: Disposable, retained: Int, isPrimaryDisposed: Bool)
        /// The underlying disposable was disposed (or is being disposed by the call that got here).
        case disposed
    }

    private let state: LockedState<State>

    /// Creates a primary handle for `disposable`.
    ///
    /// - Parameter disposable: Disposed once the primary handle and every retained handle are.
    public init(disposable: Disposable) {
        state = .make(.live(underlying: disposable, retained: 0, isPrimaryDisposed: false))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    /// Whether the underlying disposable has been disposed.
    ///
    /// Disposing the primary handle alone does not make this true while retained handles are
    /// outstanding.
    public var isDisposed: Bool {
        state.withLock { if case .disposed = $0 { return true } else { return false } }
    }

    /// Returns a handle that keeps the underlying disposable alive until it is disposed.
    ///
    /// - Returns: A new dependent handle (disposing it twice counts once); once the underlying
    ///   disposable is disposed, a handle that does nothing.
    /// - Note: Thread-safe. A handle may still be retained after the primary handle was disposed,
    ///   as long as another retained handle keeps the underlying disposable alive.
    public func retain() -> Disposable {
        let retained = state.withLock { state -> Bool in
            guard case .live(let underlying, let count, let isPrimaryDisposed) = state else { return false }
            state = .live(underlying: underlying, retained: count + 1, isPrimaryDisposed: isPrimaryDisposed)
            return true
        }
        return retained ? RefCountRetainedDisposable(parent: self) : Disposables.create()
    }

    /// Disposes the primary handle; the underlying disposable goes now if no retained handle is
    /// outstanding, otherwise when the last one is released. Later calls do nothing.
    public func dispose() {
        let underlying = state.withLock { state -> Disposable? in
            guard case .live(let underlying, let count, false) = state else { return nil }
            if count == 0 {
                state = .disposed
                return underlying
            }
            state = .live(underlying: underlying, retained: count, isPrimaryDisposed: true)
            return nil
        }
        underlying?.dispose()
    }

    /// One retained handle was disposed.
    fileprivate func release() {
        let underlying = state.withLock { state -> Disposable? in
            guard case .live(let underlying, let count, let isPrimaryDisposed) = state else { return nil }
            // Each handle releases once and exists only because of one increment: `count` >= 1.
            let remaining = count - 1
            if isPrimaryDisposed && remaining == 0 {
                state = .disposed
                return underlying
            }
            state = .live(underlying: underlying, retained: remaining, isPrimaryDisposed: isPrimaryDisposed)
            return nil
        }
        underlying?.dispose()
    }
}

/// A handle returned by `RefCountDisposable.retain()`: releases its count once.
private final class RefCountRetainedDisposable: Disposable {
    private let parent: RefCountDisposable
    private let isDisposed = Atomic<Bool>(false)

    init(parent: RefCountDisposable) {
        self.parent = parent
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    func dispose() {
        if !isDisposed.exchange(true, ordering: .acquiringAndReleasing) {
            parent.release()
        }
    }
}
