/// Disposes everything added to it when it is deallocated, the usual owner of subscriptions.
///
/// Replace a bag (`bag = DisposeBag()`) to dispose its contents early.
///
/// - Note: Thread-safe. Inserting into a bag that is being deallocated is impossible by construction;
///   the bag never disposes anything while holding its lock.
public final class DisposeBag: Sendable {
    private let disposables = LockedState<[Disposable]>.make([])

    /// Creates an empty bag.
    public init() {}

    /// Adds `disposable`, to be disposed when the bag goes away.
    public func insert(_ disposable: Disposable) {
        disposables.withLock { $0.append(disposable) }
    }

    /// Adds every one of `disposables`.
    public func insert(_ disposables: Disposable...) {
        self.disposables.withLock { $0.append(contentsOf: disposables) }
    }

    deinit {
        let held = disposables.withLock { held -> [Disposable] in
            defer { held = [] }
            return held
        }
        for disposable in held {
            disposable.dispose()
        }
    }
}
