extension Observable {
    /// A sequence of one element, then completion.
    @inlinable
    public static func just(_ element: Element) -> Observable<Element> {
        JustObservable(element)
    }

    /// A sequence that completes at once.
    public static func empty() -> Observable<Element> {
        EmptyObservable()
    }

    /// A sequence that fails at once with `error`.
    public static func error(_ error: Error) -> Observable<Element> {
        ErrorObservable(error)
    }

    /// A sequence that never emits and never terminates (until disposed).
    public static func never() -> Observable<Element> {
        NeverObservable()
    }
}

@usableFromInline
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure, except the
// elements it emits, handed across threads as every Rx element is (see `CapturedElement`).
final class JustObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let element: Element

    @usableFromInline
    init(_ element: Element) {
        self.element = element
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        observer.onNext(element)
        observer.onCompleted()
        return NopDisposable.shared
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class EmptyObservable<Element>: Observable<Element>, @unchecked Sendable {
    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        observer.onCompleted()
        return NopDisposable.shared
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class ErrorObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let error: Error

    init(_ error: Error) {
        self.error = error
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        observer.onError(error)
        return NopDisposable.shared
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class NeverObservable<Element>: Observable<Element>, @unchecked Sendable {
    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        NopDisposable.shared
    }
}
