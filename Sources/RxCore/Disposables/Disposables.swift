/// Factory functions for disposables, as in RxSwift.
public enum Disposables {
    /// A disposable that does nothing.
    ///
    /// - Returns: One shared instance: it holds nothing, so every caller can have the same one.
    public static func create() -> Disposable {
        NopDisposable.shared
    }

    /// A disposable that runs `dispose` once, on the first `dispose()` call.
    public static func create(with dispose: @escaping @Sendable () -> Void) -> Cancelable {
        AnonymousDisposable(dispose)
    }

    /// A disposable that disposes both.
    public static func create(_ disposable1: Disposable, _ disposable2: Disposable) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2])
    }

    /// A disposable that disposes all three.
    public static func create(
        _ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable
    ) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3])
    }

    /// A disposable that disposes all of them: `disposable1`, `disposable2`, `disposable3`, then
    /// `disposables` in order (RxSwift's overload for four or more).
    ///
    /// - Returns: A group; disposing it disposes every member once, and later calls do nothing.
    /// - Note: Thread-safe.
    public static func create(
        _ disposable1: Disposable, _ disposable2: Disposable, _ disposable3: Disposable,
        _ disposables: Disposable...
    ) -> Cancelable {
        CompositeDisposable(disposables: [disposable1, disposable2, disposable3] + disposables)
    }

    /// A disposable that disposes every one of `disposables`.
    public static func create(_ disposables: [Disposable]) -> Cancelable {
        CompositeDisposable(disposables: disposables)
    }
}

/// Does nothing; returned where there is nothing to release.
///
/// A class with one immutable shared instance, so that it fits a `ClassDisposable` slot without a
/// box or an allocation.
final class NopDisposable: Disposable {
    /// The one instance.
    static let shared = NopDisposable()

    private init() {}

    func dispose() {}
}
