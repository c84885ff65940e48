extension ObservableType {
    /// Transforms each element; an error thrown by `transform` terminates the sequence with it.
    ///
    /// - Note: `transform` runs on the thread the element arrives on.
    @inlinable
    public func map<Result>(_ transform: @escaping @Sendable (Element) throws -> Result) -> Observable<Result> {
        MapObservable(source: asObservable(), transform: transform)
    }
}

@usableFromInline
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class MapObservable<Source, Result>: Observable<Result>, @unchecked Sendable {
    @usableFromInline
    let source: Observable<Source>
    @usableFromInline
    let transform: @Sendable (Source) throws -> Result
    // The sink's class, resolved where `map` was inlined (a cached constant in specialized client
    // code): `subscribe` then allocates and boxes sinks without a generic metadata lookup.
    @usableFromInline
    let sinkType: MapSink<Source, Result>.Type
    @usableFromInline
    let erasedSinkType: any (AnyObject & Disposable).Type

    @inlinable
    init(source: Observable<Source>, transform: @escaping @Sendable (Source) throws -> Result) {
        self.source = source
        self.transform = transform
        self.sinkType = MapSink<Source, Result>.self
        self.erasedSinkType = MapSink<Source, Result>.self
        super.init()
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        let sink = sinkType.init(transform: transform, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return disposable(sink, ofType: erasedSinkType)
    }
}

@usableFromInline
// @unchecked Sendable: `transform` is immutable; state is the atomic lifecycle word of Sink.
final class MapSink<Source, Result>: Sink<Source, Result>, @unchecked Sendable {
    private let transform: @Sendable (Source) throws -> Result

    init(transform: @escaping @Sendable (Source) throws -> Result, downstream: ObserverNode<Result>) {
        self.transform = transform
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Source) {
        guard !isStoppedOrDisposed else { return }
        let result: Result
        do {
            result = try transform(element)
        } catch {
            forwardError(error)
            return
        }
        forwardNext(result)
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
