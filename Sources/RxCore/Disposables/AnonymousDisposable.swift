/// Runs an action on the first `dispose()`.
// @unchecked Sendable: the action lives in a LockedState and is taken out exactly once.
final class AnonymousDisposable: Cancelable, @unchecked Sendable {
    private let action: LockedState<(() -> Void)?>

    init(_ action: @escaping () -> Void) {
        self.action = .make(action)
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var isDisposed: Bool {
        action.withLock { $0 == nil }
    }

    func dispose() {
        let taken = action.withLock { action -> (() -> Void)? in
            defer { action = nil }
            return action
        }
        taken?()
    }
}
