extension PrimitiveSequenceType where Trait == CompletableTrait, Element == Never {
    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: A `Single` with `second`'s element, or the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on.
    public func andThen<Result>(_ second: Single<Result>) -> Single<Result> {
        Single(unchecked: AndThenObservable(first: primitiveSequence.source, second: second.asObservable()))
    }

    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: A `Maybe` with `second`'s outcome, or the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on.
    public func andThen<Result>(_ second: Maybe<Result>) -> Maybe<Result> {
        Maybe(unchecked: AndThenObservable(first: primitiveSequence.source, second: second.asObservable()))
    }

    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: A `Completable` that completes when `second` does, or fails with the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on.
    public func andThen(_ second: Completable) -> Completable {
        Completable(unchecked: AndThenObservable(first: primitiveSequence.source, second: second.asObservable()))
    }

    /// Runs `second` after this `Completable` completes; an error skips it.
    ///
    /// - Parameter second: Subscribed only once this one completed.
    /// - Returns: `second`'s events, or the first error.
    /// - Note: `second` is subscribed on the thread this `Completable` completes on.
    public func andThen<Result>(_ second: Observable<Result>) -> Observable<Result> {
        AndThenObservable(first: primitiveSequence.source, second: second)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class AndThenObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let first: Observable<Never>
    private let second: Observable<Element>

    init(first: Observable<Never>, second: Observable<Element>) {
        self.first = first
        self.second = second
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let current = SerialDisposable()
        let firstSubscription = SingleAssignmentDisposable()
        current.disposable = firstSubscription
        let sink = AndThenSink(second: second, current: current, downstream: observer)
        sink.setUpstream(current)
        firstSubscription.setDisposable(first.subscribe(sink))
        return sink
    }
}

/// Observes the first sequence; on its completion subscribes the second, whose events it forwards.
// @unchecked Sendable: immutable after init; the lifecycle word of Sink orders events and dispose.
final class AndThenSink<Element>: Sink<Never, Element>, @unchecked Sendable {
    private let second: Observable<Element>
    /// The running part's subscription: the first sequence's, then the second's.
    private let current: SerialDisposable

    init(second: Observable<Element>, current: SerialDisposable, downstream: ObserverNode<Element>) {
        self.second = second
        self.current = current
        super.init(downstream: downstream)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        // Replacing the first sequence's subscription releases it, and what its operators capture,
        // before the second runs (a long-running second must not keep the finished first alive).
        let secondSubscription = SingleAssignmentDisposable()
        current.disposable = secondSubscription
        secondSubscription.setDisposable(second.subscribe(AndThenSecondObserver(sink: self)))
    }

    fileprivate func secondNext(_ element: Element) {
        forwardNext(element)
    }

    fileprivate func secondError(_ error: Error) {
        forwardError(error)
    }

    fileprivate func secondCompleted() {
        forwardCompleted()
    }
}

/// Forwards the second sequence's events to the sink.
// @unchecked Sendable: immutable; events arrive serialized per the grammar.
private final class AndThenSecondObserver<Element>: ObserverNode<Element>, @unchecked Sendable {
    private let sink: AndThenSink<Element>

    init(sink: AndThenSink<Element>) {
        self.sink = sink
    }

    override func onNext(_ element: Element) { sink.secondNext(element) }
    override func onError(_ error: Error) { sink.secondError(error) }
    override func onCompleted() { sink.secondCompleted() }
}
