extension ObservableType {
    /// Emits `elements` first, then the elements of the source.
    ///
    /// - Parameter elements: The elements to emit, in order, before subscribing to the source.
    /// - Returns: The prefixed sequence. If nothing downstream wants more once the prefix is out
    ///   (`startWith(1).take(1)`), the source is not subscribed at all.
    /// - Note: The prefix is emitted synchronously on the subscribing thread; the rest arrives on the
    ///   source's thread. Thread-safe.
    public func startWith(_ elements: Element...) -> Observable<Element> {
        StartWithObservable(source: asObservable(), elements: elements)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure, except the
// elements it emits, handed across threads as every Rx element is (see `CapturedElement`).
final class StartWithObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let elements: [Element]

    init(source: Observable<Element>, elements: [Element]) {
        self.source = source
        self.elements = elements
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        for element in elements {
            if observer.isDetached {
                return NopDisposable.shared
            }
            observer.onNext(element)
        }
        if observer.isDetached {
            return NopDisposable.shared
        }
        return source.subscribe(observer)
    }
}
