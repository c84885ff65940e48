/// `ConnectableObservable.refCount()`: joins the current connection, listens to its subject, and
/// starts the connection if it is the first to join.
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class RefCountObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: ConnectableObservable<Element>

    init(source: ConnectableObservable<Element>) {
        self.source = source
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        // Count first, then listen, then connect: a synchronous source reaches the first
        // subscriber, and the connection cannot end under a subscriber that is still joining.
        let (connection, mustStart) = source.join()
        let sink = RefCountSink(parent: source, connection: connection, downstream: observer)
        sink.setUpstream(connection.subject.observable.subscribe(sink))
        if mustStart {
            source.startJoined(connection)
        }
        return sink
    }
}

/// Forwards the subject's events and leaves the connection when disposed.
// @unchecked Sendable: immutable after init; the lifecycle word of Sink orders events and dispose.
final class RefCountSink<Element>: ForwardingSink<Element>, @unchecked Sendable {
    private let parent: ConnectableObservable<Element>
    private let connection: MulticastConnection<Element>

    init(
        parent: ConnectableObservable<Element>,
        connection: MulticastConnection<Element>,
        downstream: ObserverNode<Element>
    ) {
        self.parent = parent
        self.connection = connection
        super.init(downstream: downstream)
    }

    override func didDispose() {
        parent.leave(connection)
    }
}
