extension ObservableType {
    /// Passes on only the elements for which `predicate` returns true; a thrown error terminates.
    ///
    /// - Note: `predicate` runs on the thread the element arrives on.
    @inlinable
    public func filter(_ predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        FilterObservable(source: asObservable(), predicate: predicate)
    }
}

@usableFromInline
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class FilterObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let predicate: @Sendable (Element) throws -> Bool

    @usableFromInline
    init(source: Observable<Element>, predicate: @escaping @Sendable (Element) throws -> Bool) {
        self.source = source
        self.predicate = predicate
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = FilterSink(predicate: predicate, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: `predicate` is immutable; state is the atomic lifecycle word of Sink.
final class FilterSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private let predicate: @Sendable (Element) throws -> Bool

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
