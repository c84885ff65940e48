/// What a `PublishSubject`'s subscriptions hold to remove themselves: its state, not the subject
/// (see `SubjectSubscriptionBase.owner`). The cycle state → registry → subscription → remover →
/// state lasts while the subject lives; the subject's deinit empties the registry, which ends it.
final class PublishSubjectRemover: SubjectObserverRemoving {
    let state: LockedState<PublishSubjectState>

    init(state: LockedState<PublishSubjectState>) {
        self.state = state
    }

    func removeObserver(forKey key: Int) {
        let removed = state.withLock { $0.observers.remove(forKey: key) }
        // Released here, after the lock: its deinit may run user code.
        _ = removed
    }
}

/// The same for `BehaviorSubject` and `ReplaySubject`.
// @unchecked Sendable: `state` is only reached inside its lock (its store is a class, so the box is
// not Sendable by itself).
final class ReplayingSubjectRemover<Element>: SubjectObserverRemoving, @unchecked Sendable {
    let state: LockedState<ReplayingSubjectState>

    init(state: LockedState<ReplayingSubjectState>) {
        self.state = state
    }

    func removeObserver(forKey key: Int) {
        state.removeObserver(forKey: key, of: Element.self)
    }
}
