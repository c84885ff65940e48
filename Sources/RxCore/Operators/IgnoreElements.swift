extension ObservableType {
    /// Drops every element and forwards only the terminal event.
    ///
    /// - Returns: A sequence that completes or fails when the source does.
    /// - Note: The terminal event arrives on the source's thread. Thread-safe.
    public func ignoreElements() -> Observable<Never> {
        SinkObservable(source: asObservable()) { IgnoreElementsSink<Element>(downstream: $0) }
    }
}

// @unchecked Sendable: no state beyond the atomic lifecycle word of Sink.
final class IgnoreElementsSink<Element>: Sink<Element, Never>, @unchecked Sendable {
    override func onNext(_ element: Element) {}

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
