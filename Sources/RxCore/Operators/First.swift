extension ObservableType {
    /// The first element of the sequence, or `nil` if it completes empty.
    ///
    /// - Returns: A `Single` that succeeds with the first element (disposing the source at once),
    ///   with `nil` if the source completes without one, or fails with the source's error.
    /// - Note: The result is delivered on the source's thread. Thread-safe.
    public func first() -> Single<Element?> {
        Single(unchecked: SinkObservable(source: asObservable()) { FirstSink<Element>(downstream: $0) })
    }
}

// @unchecked Sendable: no state beyond the atomic lifecycle word of Sink.
final class FirstSink<Element>: Sink<Element, Element?>, @unchecked Sendable {
    override func onNext(_ element: Element) {
        forwardNext(element)
        forwardCompleted()
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardNext(nil)
        forwardCompleted()
    }
}
