extension Observable {
    /// Creates a sequence from a subscribe function, called once per subscription.
    ///
    /// - Parameter subscribe: Receives the observer and returns what to release on dispose (cancel
    ///   the timer, the task). Events after a terminal one, or after dispose, are dropped.
    /// - Returns: A cold sequence.
    /// - Note: `subscribe` runs on the subscribing thread; events go out on whichever thread the
    ///   function sends them, which must not send concurrently.
    @inlinable
    public static func create(_ subscribe: @escaping @Sendable (AnyObserver<Element>) -> Disposable) -> Observable<Element> {
        AnonymousObservable(subscribe)
    }
}

extension Observable {
    /// `create` for this package's own adapters whose closure captures values that are not
    /// `Sendable` (RxHTTP's requests: `Any` query values, `any RequestBody`). The closure runs on the
    /// subscribing thread and only reads its copies; making those types `Sendable` is the real fix.
    /// SPI, not API; public and inlinable so that the adapters' modules specialize it.
    @_spi(RxNetworkKitInternals) @inlinable
    public static func createCapturingNonSendable(
        _ subscribe: @escaping (AnyObserver<Element>) -> Disposable
    ) -> Observable<Element> {
        AnonymousObservable(subscribe)
    }
}

@usableFromInline
// @unchecked Sendable: immutable after init; `subscribeHandler` is `@Sendable` where users give it
// (`create`), and only this package's adapters pass one that is not (`createCapturingNonSendable`).
final class AnonymousObservable<Element>: Observable<Element>, @unchecked Sendable {
    @usableFromInline
    let subscribeHandler: (AnyObserver<Element>) -> Disposable
    // The sink's class, resolved where `create` was inlined (a cached constant in specialized
    // client code): `subscribe` then allocates and boxes sinks without a generic metadata lookup.
    @usableFromInline
    let sinkType: PassThroughSink<Element>.Type
    @usableFromInline
    let erasedSinkType: any (AnyObject & Disposable).Type

    @inlinable
    init(_ subscribeHandler: @escaping (AnyObserver<Element>) -> Disposable) {
        self.subscribeHandler = subscribeHandler
        self.sinkType = PassThroughSink<Element>.self
        self.erasedSinkType = PassThroughSink<Element>.self
        super.init()
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = sinkType.init(downstream: observer)
        sink.setUpstream(classDisposable(subscribeHandler(AnyObserver(node: sink))))
        return disposable(sink, ofType: erasedSinkType)
    }
}

/// Forwards events unchanged while enforcing the grammar: nothing after a terminal event or dispose.
@usableFromInline
// @unchecked Sendable: no state beyond the atomic lifecycle word of Sink.
final class PassThroughSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    /// DEBUG builds: reports events sent concurrently by the source (see `SerializationTracker`).
    private let tracker = SerializationTracker()

    override func onNext(_ element: Element) {
        let entered = tracker.enter()
        forwardNext(element)
        tracker.leave(entered)
    }

    override func onError(_ error: Error) {
        let entered = tracker.enter()
        forwardError(error)
        tracker.leave(entered)
    }

    override func onCompleted() {
        let entered = tracker.enter()
        forwardCompleted()
        tracker.leave(entered)
    }
}
