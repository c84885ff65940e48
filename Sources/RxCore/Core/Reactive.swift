/// The `.rx` namespace: reactive extensions of a base type live in `extension Reactive where Base: T`.
public struct Reactive<Base> {
    /// The extended value.
    public let base: Base

    /// Wraps `base`.
    public init(_ base: Base) {
        self.base = base
    }
}

extension Reactive: Sendable where Base: Sendable {}

/// Adopt to get the `.rx` namespace.
public protocol ReactiveCompatible {
    /// The type extended by `.rx`, usually `Self`.
    associatedtype ReactiveBase

    /// The reactive extensions of the type.
    static var rx: Reactive<ReactiveBase>.Type { get }

    /// The reactive extensions of this value.
    var rx: Reactive<ReactiveBase> { get }
}

extension ReactiveCompatible {
    /// The reactive extensions of the type itself.
    public static var rx: Reactive<Self>.Type {
        Reactive<Self>.self
    }

    /// The reactive extensions of this value (`client.rx.request(…)`).
    public var rx: Reactive<Self> {
        Reactive(self)
    }
}
