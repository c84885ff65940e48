extension ObservableType {
    /// Forwards the one element of the source, failing unless there is exactly one.
    ///
    /// Unlike `asSingle()`, the element goes out as soon as it arrives; the check for a second one
    /// continues until the source ends.
    ///
    /// - Returns: A sequence that fails with `RxError.noElements` if the source completes empty, and
    ///   with `RxError.moreThanOneElement` (disposing the source) when a second element arrives.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func single() -> Observable<Element> {
        SinkObservable(source: asObservable()) { SingleElementSink(predicate: { _ in true }, downstream: $0) }
    }

    /// Forwards the one element that satisfies `predicate`, failing unless there is exactly one.
    ///
    /// - Parameter predicate: Selects the elements that count; an error it throws terminates the
    ///   sequence with it and disposes the source.
    /// - Returns: A sequence that fails with `RxError.noElements` if no element matches and with
    ///   `RxError.moreThanOneElement` when a second one does.
    /// - Note: `predicate` runs on the thread the element arrives on. Thread-safe.
    public func single(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        SinkObservable(source: asObservable()) { SingleElementSink(predicate: predicate, downstream: $0) }
    }
}

// @unchecked Sendable: `seen` is touched only by upstream events, which arrive serialized.
final class SingleElementSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private let predicate: @Sendable (Element) throws -> Bool
    private var seen = false

    init(predicate: @escaping @Sendable (Element) throws -> Bool, downstream: ObserverNode<Element>) {
        self.predicate = predicate
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        do {
            guard try predicate(element) else { return }
        } catch {
            forwardError(error)
            return
        }
        if seen {
            forwardError(RxError.moreThanOneElement)
            return
        }
        seen = true
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        if seen {
            forwardCompleted()
        } else {
            forwardError(RxError.noElements)
        }
    }
}
