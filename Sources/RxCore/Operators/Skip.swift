extension ObservableType {
    /// Drops the first `count` elements and forwards the rest.
    ///
    /// - Parameter count: How many elements to drop; zero or less forwards everything.
    /// - Returns: The source without its first `count` elements.
    /// - Note: Events arrive on the source's thread. Thread-safe.
    public func skip(_ count: Int) -> Observable<Element> {
        skipping { _, index in index < count }
    }

    /// Drops elements while `predicate` holds, then forwards every element from the first one for
    /// which it does not (without testing the later ones).
    ///
    /// - Parameter predicate: Tested on leading elements; an error it throws terminates the
    ///   sequence with it and disposes the source.
    /// - Returns: The source without its leading run of matching elements.
    /// - Note: `predicate` runs on the thread the element arrives on. Thread-safe.
    public func skip(while predicate: @escaping @Sendable (Element) throws -> Bool) -> Observable<Element> {
        skipping { element, _ in try predicate(element) }
    }

    private func skipping(_ shouldSkip: @escaping @Sendable (Element, Int) throws -> Bool) -> Observable<Element> {
        SinkObservable(source: asObservable()) { SkipSink(shouldSkip: shouldSkip, downstream: $0) }
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
