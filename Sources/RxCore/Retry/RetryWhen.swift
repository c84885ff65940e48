extension ObservableType {
    /// Subscribes to the source again each time the trigger built by `notificationHandler` emits
    /// after a failure.
    ///
    /// For each subscription, `notificationHandler` receives the sequence of the source's errors and
    /// returns a trigger, subscribed before the source. After the source fails, its error goes into
    /// that sequence; the next element of the trigger subscribes to the source again; an error or
    /// completion of the trigger ends the whole sequence with that error or with completion. As in
    /// RxSwift, trigger elements that arrive while an attempt is running are ignored, and a trigger
    /// that ends while an attempt is running ends the sequence when that attempt fails (an attempt
    /// that completes completes the sequence). An error that is not a `Failure` is delivered at once.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors, typically
    ///   with a delay or a reachability signal, and a limit (`enumerated()` then an error).
    /// - Returns: The elements of every attempt.
    /// - Note: A new attempt is subscribed on the thread the trigger fires on, in constant stack
    ///   depth even when everything is synchronous. The trigger may fire on any thread: deliveries
    ///   downstream never overlap and the errors sequence is serialized. Thread-safe.
    public func retry<Trigger: ObservableType & SendableMetatype, Failure: Error>(
        when notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> Observable<Element> {
        RetryWhenObservable(source: asObservable()) { notificationHandler($0).asObservable() }
    }

    /// Subscribes to the source again each time the trigger built by `notificationHandler` emits
    /// after a failure; see `retry(when:)` with a typed error for the details.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: The elements of every attempt.
    /// - Note: Thread-safe; see the typed variant.
    public func retry<Trigger: ObservableType & SendableMetatype>(
        when notificationHandler: @escaping @Sendable (Observable<Error>) -> Trigger
    ) -> Observable<Element> {
        RetryWhenObservable(source: asObservable()) { notificationHandler($0).asObservable() }
    }

    /// The older spelling of `retry(when:)`, kept because networking code written for RxSwift 5
    /// uses it.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of typed errors.
    /// - Returns: The elements of every attempt.
    /// - Note: Thread-safe; see `retry(when:)`.
    public func retryWhen<Trigger: ObservableType & SendableMetatype, Failure: Error>(
        _ notificationHandler: @escaping @Sendable (Observable<Failure>) -> Trigger
    ) -> Observable<Element> {
        retry(when: notificationHandler)
    }

    /// The older spelling of `retry(when:)`, kept because networking code written for RxSwift 5
    /// uses it.
    ///
    /// - Parameter notificationHandler: Builds the trigger from the sequence of errors.
    /// - Returns: The elements of every attempt.
    /// - Note: Thread-safe; see `retry(when:)`.
    public func retryWhen<Trigger: ObservableType & SendableMetatype>(
        _ notificationHandler: @escaping @Sendable (Observable<Error>) -> Trigger
    ) -> Observable<Element> {
        retry(when: notificationHandler)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class RetryWhenObservable<Element, Failure: Error, Trigger>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let notificationHandler: @Sendable (Observable<Failure>) -> Observable<Trigger>

    init(source: Observable<Element>, notificationHandler: @escaping @Sendable (Observable<Failure>) -> Observable<Trigger>) {
        self.source = source
        self.notificationHandler = notificationHandler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let errors = RetryErrorRelay<Failure>()
        let trigger = notificationHandler(errors)
        let sink = RetryWhenSink(source: source, errors: errors, downstream: observer)
        let triggerNode = RetryWhenTrigger<Trigger, Element, Failure>(parent: sink)
        sink.attachTrigger(triggerNode)
        triggerNode.setUpstream(trigger.subscribe(triggerNode))
        sink.resubscribe()
        return sink
    }
}
