extension ObservableType {
    /// Maps each element to a sequence and mirrors only the most recent one: a new element disposes
    /// the inner sequence of the previous one.
    ///
    /// - Parameter selector: Returns the inner sequence for an element; an error it throws
    ///   terminates the result with that error.
    /// - Returns: A sequence that completes when this sequence and the latest inner one have
    ///   completed, and fails, disposing everything, as soon as this sequence, the latest inner one
    ///   or the selector fails. Events of a replaced inner sequence are dropped, even if they race
    ///   the switch from another thread.
    /// - Note: `selector` runs on the thread this sequence emits on. The result's events are
    ///   serialized (never concurrent, never re-entrant) and arrive on the thread of the sequence
    ///   that sent them.
    public func flatMapLatest<Source: ObservableConvertibleType & SendableMetatype>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        FlatMapLatestObservable(source: asObservable()) { try selector($0).asObservable() }
    }
}

extension ObservableType where Element: ObservableConvertibleType & SendableMetatype {
    /// Mirrors the most recent inner sequence this sequence emitted, disposing the previous one.
    ///
    /// - Returns: A sequence that completes when this sequence and the latest inner one have
    ///   completed, and fails as soon as either fails. Events of a replaced inner sequence are
    ///   dropped.
    /// - Note: The result's events are serialized and arrive on the thread of the sequence that
    ///   sent them.
    public func switchLatest() -> Observable<Element.Element> {
        FlatMapLatestObservable(source: asObservable()) { $0.asObservable() }
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class FlatMapLatestObservable<SourceElement, Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<SourceElement>
    private let selector: @Sendable (SourceElement) throws -> Observable<Element>

    init(source: Observable<SourceElement>, selector: @escaping @Sendable (SourceElement) throws -> Observable<Element>) {
        self.source = source
        self.selector = selector
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = FlatMapLatestSink(selector: selector, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}
