/// Runs an action on the first `dispose()`.
// @unchecked Sendable: the action lives in a LockedState and is taken out exactly once.
final class AnonymousDisposable: Cancelable, @unchecked Sendable {
    private let action: LockedState<(@Sendable () -> Void)?>

    init(_ action: @escaping @Sendable () -> Void) {
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
        let taken = action.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        taken?()
    }
}
