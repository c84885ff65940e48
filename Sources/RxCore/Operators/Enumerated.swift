extension ObservableType {
    /// Pairs each element with its index, counted from 0 for each subscription.
    ///
    /// - Returns: A sequence of `(index, element)` tuples.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func enumerated() -> Observable<(index: Int, element: Element)> {
        SinkObservable(source: asObservable()) { EnumeratedSink(downstream: $0) }
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
