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
        return SinkObservable(source: asObservable()) { TakeCountSink(remaining: count, downstream: $0) }
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
