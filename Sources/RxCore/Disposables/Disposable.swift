/// A handle that releases a subscription or any other resource.
///
/// - Note: `dispose()` is idempotent and may be called from any thread.
public protocol Disposable: Sendable {
    /// Releases the resource; later calls do nothing.
    func dispose()
}

/// A disposable that can tell whether it has been disposed.
public protocol Cancelable: Disposable {
    /// Whether `dispose()` has been called.
    var isDisposed: Bool { get }
}

extension Disposable {
    /// Adds this disposable to `bag`, which disposes it when the bag is deallocated.
    public func disposed(by bag: DisposeBag) {
        bag.insert(self)
    }
}
