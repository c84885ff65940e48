extension ObservableType {
    /// Converts to a `Single`: the source must emit exactly one element and complete.
    ///
    /// - Returns: A `Single` that fails with `RxError.noElements` if the source completes empty, and
    ///   with `RxError.moreThanOneElement` (disposing the source) as soon as a second element arrives.
    public func asSingle() -> Single<Element> {
        Single(unchecked: AsSingleObservable(source: asObservable(), requiresElement: true))
    }

    /// Converts to a `Maybe`: the source must emit at most one element, then complete.
    ///
    /// - Returns: A `Maybe` that succeeds with the element when the source completes after one,
    ///   completes empty when the source does, and fails with `RxError.moreThanOneElement`
    ///   (disposing the source) as soon as a second element arrives.
    /// - Note: The outcome arrives on the source's thread. Thread-safe.
    public func asMaybe() -> Maybe<Element> {
        Maybe(unchecked: AsSingleObservable(source: asObservable(), requiresElement: false))
    }
}

/// Checks that the source emits at most one element (`asMaybe`), or exactly one (`asSingle`).
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class AsSingleObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let requiresElement: Bool

    /// - Parameter requiresElement: Whether an empty completion fails with `RxError.noElements`
    ///   (`asSingle`) or goes through (`asMaybe`).
    init(source: Observable<Element>, requiresElement: Bool) {
        self.source = source
        self.requiresElement = requiresElement
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = AsSingleSink(requiresElement: requiresElement, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: `element` is touched only by upstream events, which arrive serialized.
final class AsSingleSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private let requiresElement: Bool
    // Events arrive serialized (the grammar), so this needs no lock.
    private var element: Element?

    init(requiresElement: Bool, downstream: ObserverNode<Element>) {
        self.requiresElement = requiresElement
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        if self.element == nil {
            self.element = element
        } else {
            forwardError(RxError.moreThanOneElement)
        }
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        guard let element else {
            if requiresElement {
                forwardError(RxError.noElements)
            } else {
                forwardCompleted()
            }
            return
        }
        forwardNext(element)
        forwardCompleted()
    }
}
