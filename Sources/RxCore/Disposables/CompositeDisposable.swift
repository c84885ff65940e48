/// A group of disposables disposed together; members can be added and removed by key.
///
/// - Note: Thread-safe. Adding to a disposed group disposes the newcomer at once.
public final class CompositeDisposable: Cancelable {
    /// Identifies a member, to remove it later.
    public struct DisposeKey: Hashable, Sendable {
        fileprivate let value: Int
    }

    private struct State {
        var members: [Int: Disposable] = [:]
        var nextKey = 0
        var isDisposed = false
    }

    private let state: LockedState<State>

    /// Creates an empty group.
    public convenience init() {
        self.init(disposables: [])
    }

    /// Creates a group holding `disposables`.
    public init(disposables: [Disposable]) {
        var initial = State()
        for disposable in disposables {
            initial.members[initial.nextKey] = disposable
            initial.nextKey += 1
        }
        state = .make(initial)
        Resources.incrementTotal()
    }

    /// Creates a group holding the given disposables.
    public convenience init(_ disposables: Disposable...) {
        self.init(disposables: disposables)
    }

    deinit {
        Resources.decrementTotal()
    }

    /// Whether `dispose()` has been called.
    public var isDisposed: Bool {
        state.withLock { $0.isDisposed }
    }

    /// The number of members not yet disposed.
    public var count: Int {
        state.withLock { $0.members.count }
    }

    /// Adds `disposable`; returns its key, or `nil` (after disposing it) if the group is disposed.
    @discardableResult
    public func insert(_ disposable: Disposable) -> DisposeKey? {
        let key = state.withLock { state -> Int? in
            if state.isDisposed { return nil }
            let key = state.nextKey
            state.nextKey += 1
            state.members[key] = disposable
            return key
        }
        guard let key else {
            disposable.dispose()
            return nil
        }
        return DisposeKey(value: key)
    }

    /// Removes the member for `key` and disposes it.
    public func remove(for key: DisposeKey) {
        state.withLock { $0.members.removeValue(forKey: key.value) }?.dispose()
    }

    /// Disposes every member and every later one.
    public func dispose() {
        let members = state.withLock { state -> [Int: Disposable] in
            if state.isDisposed { return [:] }
            state.isDisposed = true
            defer { state.members = [:] }
            return state.members
        }
        // Dispose in insertion order, as RxSwift users expect from a bag.
        for key in members.keys.sorted() {
            members[key]?.dispose()
        }
    }
}
