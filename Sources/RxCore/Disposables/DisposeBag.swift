/// Disposes everything added to it when it is deallocated, the usual owner of subscriptions.
///
/// Replace a bag (`bag = DisposeBag()`) to dispose its contents early.
///
/// - Note: Thread-safe. Inserting into a bag that is being deallocated is impossible by construction;
///   the bag never disposes anything while holding its lock.
public final class DisposeBag: Sendable {
    // In insertion order, the order of disposal. Class instances (every subscription RxCore hands
    // out) are stored as they are, 16 bytes an entry; a value-type disposable is boxed on insert.
    private let disposables = LockedState<[ClassDisposable]>.make([])

    /// Creates an empty bag.
    public init() {}

    /// Adds `disposable`, to be disposed when the bag goes away.
    public func insert(_ disposable: Disposable) {
        let entry = classDisposable(disposable)
        disposables.withLock { $0.append(entry) }
    }

    /// Adds every one of `disposables`.
    public func insert(_ disposables: Disposable...) {
        insert(disposables)
    }

    /// Adds every one of `disposables`, in order.
    public func insert(_ disposables: [Disposable]) {
        let entries = disposables.map(classDisposable)
        self.disposables.withLock { $0.append(contentsOf: entries) }
    }

    deinit {
        let held = disposables.withLock { held -> [ClassDisposable] in
            defer { held = [] }
            return held
        }
        for disposable in held {
            disposable.dispose()
        }
    }
}
