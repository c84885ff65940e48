extension Observable {
    /// Creates a sequence from a subscribe function, called once per subscription.
    ///
    /// - Parameter subscribe: Receives the observer and returns what to release on dispose (cancel
    ///   the timer, the task). Events after a terminal one, or after dispose, are dropped.
    /// - Returns: A cold sequence.
    /// - Note: `subscribe` runs on the subscribing thread; events go out on whichever thread the
    ///   function sends them, which must not send concurrently.
    @inlinable
    public static func create(_ subscribe: @escaping (AnyObserver<Element>) -> Disposable) -> Observable<Element> {
        AnonymousObservable(subscribe)
    }
}

// @unchecked Sendable: immutable after init.
@usableFromInline
final class AnonymousObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let subscribeHandler: (AnyObserver<Element>) -> Disposable

    @usableFromInline
    init(_ subscribeHandler: @escaping (AnyObserver<Element>) -> Disposable) {
        self.subscribeHandler = subscribeHandler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> Disposable {
        let sink = PassThroughSink(downstream: observer)
        sink.setUpstream(subscribeHandler(AnyObserver(node: sink)))
        return sink
    }
}

/// Forwards events unchanged while enforcing the grammar: nothing after a terminal event or dispose.
// @unchecked Sendable: no state beyond the atomic lifecycle word of Sink.
final class PassThroughSink<Element>: Sink<Element, Element>, @unchecked Sendable {
    override func onNext(_ element: Element) {
        forwardNext(element)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
