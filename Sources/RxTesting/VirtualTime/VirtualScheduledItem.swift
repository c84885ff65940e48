@_spi(RxNetworkKitInternals) import RxCore

/// One action waiting in a `TestScheduler`: runs at most once, never after dispose; disposing it
/// while it waits removes it from the scheduler at once (releasing what its action captured), and
/// disposing it after it ran disposes what the action returned.
// @unchecked Sendable: the phase and the link to the scheduler live in one LockedState.
final class VirtualScheduledItem: Cancelable, @unchecked Sendable {
    private enum Phase {
        case pending(() -> Disposable)
        case running
        case finished(Disposable)
        case disposed
    }

    private struct State {
        var phase: Phase
        weak var scheduler: TestScheduler?
    }

    let id: Int
    let time: TestTime
    private let state: LockedState<State>

    init(id: Int, time: TestTime, scheduler: TestScheduler, action: @escaping () -> Disposable) {
        self.id = id
        self.time = time
        self.state = .make(State(phase: .pending(action), scheduler: scheduler))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var isDisposed: Bool {
        state.withLock { if case .disposed = $0.phase { return true } else { return false } }
    }

    /// Runs the action unless it already ran or was disposed; called by the scheduler's run loop.
    func run() {
        let action = state.withLock { state -> (() -> Disposable)? in
            guard case .pending(let action) = state.phase else { return nil }
            state.phase = .running
            return action
        }
        guard let action else { return }
        let result = action()
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
        // The old phase (and the action it captured) is released after unlocking.
        let (old, scheduler) = state.withLock { state -> (Phase, TestScheduler?) in
            defer { state.scheduler = nil }
            let old = state.phase
            state.phase = .disposed
            return (old, state.scheduler)
        }
        switch old {
        case .pending:
            scheduler?.remove(self)
        case .finished(let result):
            result.dispose()
        case .running, .disposed:
            break
        }
    }
}
