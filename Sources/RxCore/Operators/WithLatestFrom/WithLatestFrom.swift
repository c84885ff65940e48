extension ObservableType {
    /// Combines each element of this sequence with the latest element of `second`, by `resultSelector`.
    ///
    /// `second` is subscribed first, then this sequence. Elements of this sequence that arrive before
    /// `second` has emitted are dropped. The result completes when this sequence completes; it fails
    /// when either sequence fails; `second` completing changes nothing (its last element stays the
    /// latest), as in RxSwift.
    ///
    /// - Parameters:
    ///   - second: The sequence whose latest element is paired with each element of this one.
    ///   - resultSelector: Builds the result from an element of this sequence and the latest element
    ///     of `second`; an error it throws terminates the sequence with it.
    /// - Returns: One result per element of this sequence from the moment `second` has emitted.
    /// - Note: `resultSelector` runs, and results arrive, on the thread of this sequence's element.
    ///   An error from `second` arrives on `second`'s thread, or, if an element is being delivered
    ///   meanwhile, right after it on that element's thread: deliveries never overlap. Thread-safe.
    public func withLatestFrom<Source: ObservableConvertibleType, Result>(
        _ second: Source,
        resultSelector: @escaping @Sendable (Element, Source.Element) throws -> Result
    ) -> Observable<Result> {
        WithLatestFromObservable(source: asObservable(), second: second.asObservable(), resultSelector: resultSelector)
    }

    /// The latest element of `second` each time this sequence emits.
    ///
    /// Same as `withLatestFrom(_:resultSelector:)` with a selector that keeps `second`'s element:
    /// elements of this sequence before `second` has emitted are dropped; the result completes with
    /// this sequence and fails when either fails.
    ///
    /// - Parameter second: The sequence whose latest element is emitted.
    /// - Returns: `second`'s latest element, once per element of this sequence.
    /// - Note: Events arrive as for `withLatestFrom(_:resultSelector:)`. Thread-safe.
    public func withLatestFrom<Source: ObservableConvertibleType>(_ second: Source) -> Observable<Source.Element> {
        WithLatestFromObservable(source: asObservable(), second: second.asObservable()) { $1 }
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class WithLatestFromObservable<First, Second, Result>: Observable<Result>, @unchecked Sendable {
    private let source: Observable<First>
    private let second: Observable<Second>
    private let resultSelector: @Sendable (First, Second) throws -> Result

    init(
        source: Observable<First>,
        second: Observable<Second>,
        resultSelector: @escaping @Sendable (First, Second) throws -> Result
    ) {
        self.source = source
        self.second = second
        self.resultSelector = resultSelector
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        let sink = WithLatestFromSink(resultSelector: resultSelector, downstream: observer)
        let secondObserver = WithLatestFromSecond<First, Second, Result>(parent: sink)
        sink.attach(secondObserver)
        secondObserver.setUpstream(second.subscribe(secondObserver))
        if !sink.isStoppedOrDisposed {
            sink.setUpstream(source.subscribe(sink))
        }
        return sink
    }
}
