extension ObservableType {
    /// Converts to a `Single`: the source must emit exactly one element and complete.
    ///
    /// - Returns: A `Single` that fails with `RxError.noElements` if the source completes empty, and
    ///   with `RxError.moreThanOneElement` (disposing the source) as soon as a second element arrives.
    public func asSingle() -> Single<Element> {
        Single(unchecked: AsSingleObservable(source: asObservable()))
    }
}

// @unchecked Sendable: immutable after init.
final class AsSingleObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>

    init(source: Observable<Element>) {
        self.source = source
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = AsSingleSink(downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: `element` is touched only by upstream events, which arrive serialized.
final class AsSingleSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    // Events arrive serialized (the grammar), so this needs no lock.
    private var element: Element?

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
            forwardError(RxError.noElements)
            return
        }
        forwardNext(element)
        forwardCompleted()
    }
}
