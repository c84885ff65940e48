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
        let selectNext: @Sendable (Element) throws -> Observable<Source.Element> = { try selector($0).asObservable() }
        return SinkObservable(source: asObservable()) { FlatMapLatestSink(selector: selectNext, downstream: $0) }
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
        SinkObservable(source: asObservable()) { FlatMapLatestSink(selector: { $0.asObservable() }, downstream: $0) }
    }
}

