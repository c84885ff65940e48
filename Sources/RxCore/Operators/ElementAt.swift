extension ObservableType {
    /// The element at `index` (0-based), then completion.
    ///
    /// - Parameter index: The position of the wanted element.
    /// - Returns: A sequence of that one element, which disposes the source once it has it; it fails
    ///   with `RxError.argumentOutOfRange` if the source completes first or if `index` is negative
    ///   (then without subscribing).
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func element(at index: Int) -> Observable<Element> {
        if index < 0 {
            return .error(RxError.argumentOutOfRange)
        }
        return SinkObservable(source: asObservable()) { ElementAtSink(remaining: index, downstream: $0) }
    }

    /// The element at `index` (0-based), then completion; RxSwift's older spelling of `element(at:)`.
    ///
    /// - Parameter index: The position of the wanted element.
    /// - Returns: See `element(at:)`.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func elementAt(_ index: Int) -> Observable<Element> {
        element(at: index)
    }
}

// @unchecked Sendable: `remaining` is touched only by upstream events, which arrive serialized.
final class ElementAtSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private var remaining: Int

    init(remaining: Int, downstream: ObserverNode<Element>) {
        self.remaining = remaining
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        if remaining > 0 {
            remaining -= 1
            return
        }
        forwardNext(element)
        forwardCompleted()
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardError(RxError.argumentOutOfRange)
    }
}
