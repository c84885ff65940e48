extension ObservableType {
    /// Pairs each element with its index, counted from 0 for each subscription.
    ///
    /// - Returns: A sequence of `(index, element)` tuples.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func enumerated() -> Observable<(index: Int, element: Element)> {
        EnumeratedObservable(source: asObservable())
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class EnumeratedObservable<Element>: Observable<(index: Int, element: Element)>, @unchecked Sendable {
    private let source: Observable<Element>

    init(source: Observable<Element>) {
        self.source = source
    }

    override func subscribe(_ observer: ObserverNode<(index: Int, element: Element)>) -> ClassDisposable {
        let sink = EnumeratedSink(downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: `index` is touched only by upstream events, which arrive serialized.
final class EnumeratedSink<Element>: Sink<Element, (index: Int, element: Element)>, @unchecked Sendable {
    private var index = 0

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        let current = index
        index += 1
        forwardNext((index: current, element: element))
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
