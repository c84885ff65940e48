extension ObservableType {
    /// Collects every element into an array, delivered when the source completes.
    ///
    /// - Returns: A `Single` of all the elements in order (empty if the source completes at once);
    ///   an error from the source fails it.
    /// - Note: The array is delivered on the thread the source completes on. Memory grows with the
    ///   number of elements: do not use on an endless source. Thread-safe.
    public func toArray() -> Single<[Element]> {
        Single(unchecked: SinkObservable(source: asObservable()) { ToArraySink(downstream: $0) })
    }
}

// @unchecked Sendable: `elements` is touched only by upstream events, which arrive serialized.
final class ToArraySink<Element>: Sink<Element, [Element]>, @unchecked Sendable {
    private var elements: [Element] = []

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        elements.append(element)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        let result = elements
        elements = []
        forwardNext(result)
        forwardCompleted()
    }
}
