/// One mutable `State` behind one lock, in a single allocation (the lock lives in the object's tail).
///
/// All shared mutable state in this package goes through `withLock`. The closure must not call
/// observers, plugins or any user code: decide under the lock, return what to do, act after it.
/// The lock is not recursive. Copies of a `LockedState` share the same state.
///
/// Public as SPI (`@_spi(RxNetworkKitInternals) import RxCore`), not API: the package's other
/// modules call it on every HTTP call, and only a public `@inlinable` body is specialized in the
/// caller's module (a `package` one is called as unspecialized generic code, with its metadata
/// looked up at run time).
///
/// - Note: Thread-safe.
@_spi(RxNetworkKitInternals)
public struct LockedState<State> {
    @usableFromInline
    let storage: LockedStorage<State>

    @usableFromInline
    init(storage: LockedStorage<State>) {
        self.storage = storage
    }

    /// Creates a box holding `initial`.
    @inlinable
    public static func make(_ initial: State) -> LockedState<State> {
        LockedState(storage: LockedStorage.make(initial))
    }

    /// Runs `body` with exclusive access to the state and returns its result.
    @inlinable @inline(__always)
    public func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try storage.withLock(body)
    }
}

@usableFromInline
final class LockedStorage<State>: ManagedBuffer<State, PlatformLock.Primitive> {
    @inlinable
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
