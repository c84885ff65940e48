/// One action handed to a scheduler: runs at most once, never after dispose, and disposes what the
/// action returned when itself is disposed — even if that happens while the action is running.
// @unchecked Sendable: the pending action, its result and the cancel handle live in one LockedState.
final class ScheduledAction<StateType>: Cancelable, @unchecked Sendable {
    private enum Phase {
        case pending(StateType, (StateType) -> Disposable)
        case running
        case finished(Disposable)
        case disposed
    }

    private struct State {
        var phase: Phase
        /// What keeps the action alive until its time (a timer source); released on dispose.
        var cancel: (@Sendable () -> Void)?
    }

    private let state: LockedState<State>

    init(state: StateType, action: @escaping @Sendable (StateType) -> Disposable) {
        self.state = .make(State(phase: .pending(state, action)))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var isDisposed: Bool {
        state.withLock { if case .disposed = $0.phase { return true } else { return false } }
    }

    /// Registers what to cancel on dispose; runs it at once if already disposed.
    func setCancellation(_ cancel: @escaping @Sendable () -> Void) {
        let cancelNow = state.withLock { state -> Bool in
            if case .disposed = state.phase { return true }
            state.cancel = cancel
            return false
        }
        if cancelNow { cancel() }
    }

    /// Runs the action unless it already ran or was disposed.
    func run() {
        let work = state.withLock { state -> (StateType, (StateType) -> Disposable, (@Sendable () -> Void)?)? in
            guard case .pending(let value, let action) = state.phase else { return nil }
            state.phase = .running
            defer { state.cancel = nil }
            return (value, action, state.cancel)
        }
        guard let (value, action, releaseTimer) = work else { return }
        // A one-shot timer keeps its handler, and so this action, until it is cancelled.
        releaseTimer?()
        let result = action(value)
        let disposeResult = state.withLock { state -> Bool in
            if case .disposed = state.phase { return true }
            state.phase = .finished(result)
            return false
        }
        if disposeResult {
            result.dispose()
        }
    }

    func dispose() {
        let (result, cancel) = state.withLock { state -> (Disposable?, (@Sendable () -> Void)?) in
            defer {
                state.phase = .disposed
                state.cancel = nil
            }
            if case .finished(let result) = state.phase { return (result, state.cancel) }
            return (nil, state.cancel)
        }
        result?.dispose()
        cancel?()
    }
}
