/// The observable of an operator with one source whose work is all in its sink: each subscription
/// makes a sink, subscribes it to the source and returns it as the subscription's disposable.
@usableFromInline
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; `makeSink` is `@Sendable` and the source is an `Observable`.
final class SinkObservable<SourceElement, Element>: Observable<Element>, @unchecked Sendable {
    @usableFromInline
    let source: Observable<SourceElement>
    @usableFromInline
    let makeSink: @Sendable (ObserverNode<Element>) -> Sink<SourceElement, Element>

    /// - Parameters:
    ///   - source: The upstream, subscribed once per subscription.
    ///   - makeSink: Makes one subscription's sink, sending to the given downstream.
    @inlinable
    init(source: Observable<SourceElement>, makeSink: @escaping @Sendable (ObserverNode<Element>) -> Sink<SourceElement, Element>) {
        self.source = source
        self.makeSink = makeSink
        super.init()
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = makeSink(observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}
