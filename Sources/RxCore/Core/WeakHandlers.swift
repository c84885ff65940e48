/// Binds the handlers of the `subscribe(with:…)` family to an object held weakly: a bound handler
/// does nothing once the object is gone, as in RxSwift.
struct WeakHandlers<Object: AnyObject & Sendable>: Sendable {
    private let object: Object

    /// - Parameter object: Captured weakly by every handler this binds; not retained here beyond
    ///   the call to `subscribe(with:…)`.
    init(_ object: Object) {
        self.object = object
    }

    /// `handler` called with the object and the value while the object lives.
    func bind<Value>(_ handler: (@Sendable (Object, Value) -> Void)?) -> (@Sendable (Value) -> Void)? {
        handler.map { [object] handler in
            { @Sendable [weak object] value in
                if let object { handler(object, value) }
            }
        }
    }

    /// `handler` called with the object while it lives.
    func bind(_ handler: (@Sendable (Object) -> Void)?) -> (@Sendable () -> Void)? {
        handler.map { [object] handler in
            { @Sendable [weak object] in
                if let object { handler(object) }
            }
        }
    }
}
