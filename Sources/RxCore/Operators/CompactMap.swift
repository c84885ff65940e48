extension ObservableType {
    /// Transforms each element and drops the `nil` results.
    ///
    /// - Parameter transform: Maps an element to a result or `nil`; an error it throws terminates
    ///   the sequence with it and disposes the source.
    /// - Returns: The non-nil results, in order.
    /// - Note: `transform` runs on the thread the element arrives on. Thread-safe.
    public func compactMap<Result>(_ transform: @escaping @Sendable (Element) throws -> Result?) -> Observable<Result> {
        SinkObservable(source: asObservable()) { CompactMapSink(transform: transform, downstream: $0) }
    }
}

// @unchecked Sendable: `transform` is immutable; state is the atomic lifecycle word of Sink.
final class CompactMapSink<Source, Result>: Sink<Source, Result>, @unchecked Sendable {
    private let transform: @Sendable (Source) throws -> Result?

    init(transform: @escaping @Sendable (Source) throws -> Result?, downstream: ObserverNode<Result>) {
        self.transform = transform
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Source) {
        guard !isStoppedOrDisposed else { return }
        let result: Result?
        do {
            result = try transform(element)
        } catch {
            forwardError(error)
            return
        }
        if let result {
            forwardNext(result)
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
