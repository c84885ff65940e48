extension ObservableType {
    /// The first `count` elements of the sequence, then completion.
    ///
    /// The source is disposed as soon as the last wanted element is through. `take(0)` completes at
    /// once without subscribing to the source, as in RxSwift.
    ///
    /// - Parameter count: How many elements to take; a negative count fails the sequence with
    ///   `RxError.argumentOutOfRange` (without subscribing) instead of crashing.
    /// - Returns: A sequence of at most `count` elements.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func take(_ count: Int) -> Observable<Element> {
        if count < 0 {
            return .error(RxError.argumentOutOfRange)
        }
        if count == 0 {
            return .empty()
        }
        return TakeCountObservable(source: asObservable(), count: count)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class TakeCountObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let count: Int

    init(source: Observable<Element>, count: Int) {
        self.source = source
        self.count = count
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = TakeCountSink(remaining: count, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: `remaining` is touched only by upstream events, which arrive serialized.
final class TakeCountSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private var remaining: Int

    init(remaining: Int, downstream: ObserverNode<Element>) {
        self.remaining = remaining
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed, remaining > 0 else { return }
        remaining -= 1
        forwardNext(element)
        if remaining == 0 {
            forwardCompleted()
        }
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
