extension ObservableType {
    /// Passes on only the elements for which `predicate` returns true; a thrown error terminates.
    ///
    /// - Note: `predicate` runs on the thread the element arrives on.
    @inlinable
    public func filter(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        SinkObservable(source: asObservable()) { FilterSink(predicate: predicate, downstream: $0) }
    }
}

@usableFromInline
// @unchecked Sendable: `predicate` is immutable; state is the atomic lifecycle word of Sink.
final class FilterSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private let predicate: @Sendable (Element) throws -> Bool

    @usableFromInline
    init(predicate: @escaping @Sendable (Element) throws -> Bool, downstream: ObserverNode<Element>) {
        self.predicate = predicate
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        do {
            if try predicate(element) {
                forwardNext(element)
            }
        } catch {
            forwardError(error)
        }
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }

    override func sourceWasAbandoned() {
        if abandonUpstream() {
            downstream.sourceWasAbandoned()
        }
    }
}
