extension ObservableType {
    /// Drops the first `count` elements and forwards the rest.
    ///
    /// - Parameter count: How many elements to drop; zero or less forwards everything.
    /// - Returns: The source without its first `count` elements.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func skip(_ count: Int) -> Observable<Element> {
        SkipObservable(source: asObservable()) { _, index in index < count }
    }

    /// Drops elements while `predicate` holds, then forwards every element from the first one for
    /// which it does not (without testing the later ones).
    ///
    /// - Parameter predicate: Tested on leading elements; an error it throws terminates the
    ///   sequence with it and disposes the source.
    /// - Returns: The source without its leading run of matching elements.
    /// - Note: `predicate` runs on the thread the element arrives on. Thread-safe.
    public func skip(while predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        SkipObservable(source: asObservable()) { element, _ in try predicate(element) }
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class SkipObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let shouldSkip: @Sendable (Element, Int) throws -> Bool

    init(source: Observable<Element>, shouldSkip: @escaping @Sendable (Element, Int) throws -> Bool) {
        self.source = source
        self.shouldSkip = shouldSkip
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = SkipSink(shouldSkip: shouldSkip, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

/// Skips while `shouldSkip(element, index)` holds, then forwards everything.
// @unchecked Sendable: `index`/`skipping` are touched only by upstream events, which arrive serialized.
final class SkipSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    private let shouldSkip: @Sendable (Element, Int) throws -> Bool
    private var skipping = true
    private var index = 0

    init(shouldSkip: @escaping @Sendable (Element, Int) throws -> Bool, downstream: ObserverNode<Element>) {
        self.shouldSkip = shouldSkip
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        if skipping {
            do {
                skipping = try shouldSkip(element, index)
            } catch {
                forwardError(error)
                return
            }
            index += 1
            if skipping { return }
        }
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
