/// One mutable `State` behind one lock, in a single allocation (the lock lives in the object's tail).
///
/// All shared mutable state in this package goes through `withLock`. The closure must not call
/// observers, plugins or any user code: decide under the lock, return what to do, act after it.
/// The lock is not recursive. Copies of a `LockedState` share the same state.
///
/// - Note: Thread-safe.
package struct LockedState<State> {
    @usableFromInline
    let storage: LockedStorage<State>

    /// Creates a box holding `initial`.
    package static func make(_ initial: State) -> LockedState<State> {
        LockedState(storage: LockedStorage.make(initial))
    }

    /// Runs `body` with exclusive access to the state and returns its result.
    @inlinable @inline(__always)
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }
}

@usableFromInline
final class LockedStorage<State>: ManagedBuffer<State, PlatformLock.Primitive> {
    static func make(_ initial: State) -> LockedStorage<State> {
        let buffer = create(minimumCapacity: 1) { _ in initial }
        // `create` is declared to return the base class; the dynamic type is `Self`.
        let storage = unsafeDowncast(buffer, to: LockedStorage<State>.self)
        storage.withUnsafeMutablePointerToElements { PlatformLock.initialize($0) }
        return storage
    }

    deinit {
        withUnsafeMutablePointerToElements { PlatformLock.destroy($0) }
    }

    @inlinable @inline(__always)
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try withUnsafeMutablePointers { state, lock in
            PlatformLock.lock(lock)
            defer { PlatformLock.unlock(lock) }
            return try body(&state.pointee)
        }
    }
}

// @unchecked Sendable: `State` is only ever reached inside `withLock`, under the one mutex, and is
// itself Sendable, so what leaves the lock can be used on any thread (swift-nio's
// `NIOLockedValueBox` rule). A box of non-Sendable state is not Sendable: the class that owns it
// says why sharing it is safe.
extension LockedState: @unchecked Sendable where State: Sendable {}
