extension ObservableType {
    /// Converts to a `Single`: the source must emit exactly one element and complete.
    ///
    /// - Returns: A `Single` that fails with `RxError.noElements` if the source completes empty, and
    ///   with `RxError.moreThanOneElement` (disposing the source) as soon as a second element arrives.
    public func asSingle() -> Single<Element> {
        Single(unchecked: SinkObservable(source: asObservable()) {
            AsSingleSink(requiresElement: true, downstream: $0)
        })
    }

    /// Converts to a `Maybe`: the source must emit at most one element, then complete.
    ///
    /// - Returns: A `Maybe` that succeeds with the element when the source completes after one,
    ///   completes empty when the source does, and fails with `RxError.moreThanOneElement`
    ///   (disposing the source) as soon as a second element arrives.
    /// - Note: The outcome arrives on the source's thread. Thread-safe.
    public func asMaybe() -> Maybe<Element> {
        Maybe(unchecked: SinkObservable(source: asObservable()) {
            AsSingleSink(requiresElement: false, downstream: $0)
        })
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
