/// A disposable that is a class instance: what operators return from their core `subscribe` and
/// what a `SubscriptionNode` or a `DisposeBag` stores.
///
/// As an existential it is two words (the object and its `Disposable` witness table), where an
/// `any Disposable` is five (an inline buffer of three, the type, the witness table): 16 bytes a slot
/// instead of 40, and copying it is a retain instead of a call through the type's value witnesses.
@usableFromInline
typealias ClassDisposable = any AnyObject & Disposable

/// Returns `disposable` as a `ClassDisposable`: itself if it is a class instance, otherwise a box
/// around it.
///
/// Costs a dynamic cast (some 750 instructions: the runtime looks the `Disposable` conformance up),
/// so it is called only where a user-supplied `Disposable` enters a slot (the result of an
/// `Observable.create` handler or of a scheduler, a `DisposeBag` insert), never per event.
/// `Disposables.create()`, what a handler with nothing to release returns, takes a type comparison
/// instead.
func classDisposable(_ disposable: Disposable) -> ClassDisposable {
    if type(of: disposable) == NopDisposable.self {
        return NopDisposable.shared
    }
    if let object = disposable as? ClassDisposable {
        return object
    }
    return BoxedDisposable(disposable)
}

/// A value-type disposable boxed into a class, so that it fits a `ClassDisposable` slot.
///
/// Disposing the box disposes the value; the value decides whether a second call does anything,
/// exactly as it would unboxed.
final class BoxedDisposable: Disposable {
    let base: Disposable

    init(_ base: Disposable) {
        self.base = base
    }

    func dispose() {
        base.dispose()
    }
}
