/// Holds one disposable that is set at most once; disposing before it is set disposes it on arrival.
///
/// - Note: Thread-safe. Setting it twice is a programming error and disposes the second value.
public final class SingleAssignmentDisposable: Cancelable {
    private enum State {
        case empty
        case assigned(Disposable)
        case disposed
    }

    private let state = LockedState<State>.make(.empty)

    /// Creates an empty holder.
    public init() {
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        state.withLock { if case .disposed = $0 { return true } else { return false } }
    }

    /// Sets the held disposable; if this holder is already disposed, disposes `disposable` at once.
    public func setDisposable(_ disposable: Disposable) {
        let disposeNow = state.withLock { state -> Bool in
            switch state {
            case .empty:
                state = .assigned(disposable)
                return false
            case .assigned, .disposed:
                return true
            }
        }
        if disposeNow {
            disposable.dispose()
        }
    }

    /// Disposes the held disposable, now or when it is set.
    public func dispose() {
        let held = state.withLock { state -> Disposable? in
            defer { state = .disposed }
            if case .assigned(let disposable) = state { return disposable }
            return nil
        }
        held?.dispose()
    }
}
