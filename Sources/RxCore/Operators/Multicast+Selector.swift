extension ObservableType {
    /// Shares one subscription to this sequence, through a new subject, among every use of it
    /// inside `selector` (RxSwift's `multicast(_:selector:)`).
    ///
    /// Each subscription to the result makes a subject, hands `selector` a connectable sequence
    /// that feeds it, subscribes to what `selector` returns, then connects: the source is
    /// subscribed once however many times `selector` uses its argument (`Observable.merge($0,
    /// $0.skip(1))`).
    ///
    /// - Parameters:
    ///   - subjectSelector: Makes the subject of one subscription; an error it throws is sent to
    ///     the subscriber as `onError`, and nothing is subscribed.
    ///   - selector: Builds the result from the shared sequence; an error it throws is sent to the
    ///     subscriber as `onError`, and nothing is subscribed.
    /// - Returns: A cold sequence with the events of `selector`'s result. Ending it (terminal event
    ///   or dispose) disposes that result's subscription, then the connection to the source.
    /// - Note: Both closures run on the subscribing thread, once per subscription. Events arrive on
    ///   the threads the shared sequence and the result emit on. Thread-safe.
    public func multicast<Subject: SubjectType, Result>(
        _ subjectSelector: @escaping @Sendable () throws -> Subject,
        selector: @escaping @Sendable (Observable<Subject.Element>) throws -> Observable<Result>
    ) -> Observable<Result>
    where Subject.Element == Element, Subject.Observer.Element == Element {
        MulticastSelectorObservable(source: asObservable(), subjectSelector: subjectSelector, selector: selector)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class MulticastSelectorObservable<Subject: SubjectType, Result>: Observable<Result>, @unchecked Sendable
where Subject.Observer.Element == Subject.Element {
    private let source: Observable<Subject.Element>
    private let subjectSelector: @Sendable () throws -> Subject
    private let selector: @Sendable (Observable<Subject.Element>) throws -> Observable<Result>

    init(
        source: Observable<Subject.Element>,
        subjectSelector: @escaping @Sendable () throws -> Subject,
        selector: @escaping @Sendable (Observable<Subject.Element>) throws -> Observable<Result>
    ) {
        self.source = source
        self.subjectSelector = subjectSelector
        self.selector = selector
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        let connectable: ConnectableObservable<Subject.Element>
        let result: Observable<Result>
        do {
            // User code, on the subscribing thread.
            let shared = MulticastSubject(try subjectSelector())
            connectable = ConnectableObservable(source: source, makeSubject: { shared })
            result = try selector(connectable)
        } catch {
            observer.onError(error)
            return NopDisposable.shared
        }
        let sink = ForwardingSink(downstream: observer)
        // Listen first, then connect: a source that emits during `connect()` reaches the result.
        let subscription = result.subscribe(sink)
        let connection = connectable.connect()
        // Set last: if the result ended meanwhile, this disposes both at once.
        sink.setUpstream(SubscriptionGroup(members: [subscription, classDisposable(connection)]))
        return sink
    }
}
