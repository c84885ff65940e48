extension ObservableType {
    /// Drops every element and forwards only the terminal event.
    ///
    /// - Returns: A sequence that completes or fails when the source does.
    /// - Note: The terminal event arrives on the source's thread. Thread-safe.
    public func ignoreElements() -> Observable<Never> {
        IgnoreElementsObservable(source: asObservable())
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class IgnoreElementsObservable<Element>: Observable<Never>, @unchecked Sendable {
    private let source: Observable<Element>

    init(source: Observable<Element>) {
        self.source = source
    }

    override func subscribe(_ observer: ObserverNode<Never>) -> ClassDisposable {
        let sink = IgnoreElementsSink<Element>(downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
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
