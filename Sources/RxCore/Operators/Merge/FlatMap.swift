extension ObservableType {
    /// Maps each element to a sequence and merges the elements of all those sequences, as they
    /// arrive.
    ///
    /// - Parameter selector: Returns the inner sequence for an element; an error it throws
    ///   terminates the result with that error.
    /// - Returns: A sequence that completes when this sequence and every inner one have completed,
    ///   and fails, disposing everything, as soon as any of them (or the selector) fails.
    /// - Note: `selector` runs on the thread this sequence emits on. Inner sequences may emit
    ///   concurrently; the result's events are serialized (never concurrent, never re-entrant) and
    ///   arrive on the thread of one of them. Each inner sequence's elements keep their order.
    public func flatMap<Source: ObservableConvertibleType & SendableMetatype>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        FlatMapObservable(source: asObservable(), maxConcurrent: .max, dropsWhenBusy: false) {
            try selector($0).asObservable()
        }
    }

    /// Maps each element to a sequence and concatenates those sequences: each is subscribed when
    /// the previous one has completed, so their elements come out in order.
    ///
    /// - Parameter selector: Returns the inner sequence for an element (called as the element
    ///   arrives, not when its sequence is subscribed); an error it throws terminates the result.
    /// - Returns: A sequence that completes when this sequence and every inner one have completed,
    ///   and fails, disposing everything, as soon as any of them (or the selector) fails.
    /// - Note: Inner sequences that complete synchronously are subscribed in a loop, without growing
    ///   the stack. The result's events are serialized.
    public func concatMap<Source: ObservableConvertibleType & SendableMetatype>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        FlatMapObservable(source: asObservable(), maxConcurrent: 1, dropsWhenBusy: false) {
            try selector($0).asObservable()
        }
    }

    /// Maps an element to a sequence and mirrors it to its end, dropping the elements that arrive
    /// meanwhile; the next element after it completes starts a new inner sequence.
    ///
    /// - Parameter selector: Returns the inner sequence for an element; an error it throws
    ///   terminates the result. It is not called for dropped elements.
    /// - Returns: A sequence that completes when this sequence and the running inner one have
    ///   completed, and fails as soon as either (or the selector) fails.
    /// - Note: The result's events are serialized.
    public func flatMapFirst<Source: ObservableConvertibleType & SendableMetatype>(
        _ selector: @escaping @Sendable (Element) throws -> Source
    ) -> Observable<Source.Element> {
        FlatMapObservable(source: asObservable(), maxConcurrent: 1, dropsWhenBusy: true) {
            try selector($0).asObservable()
        }
    }
}
