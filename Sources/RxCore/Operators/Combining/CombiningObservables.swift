// The observables of `zip` and `combineLatest`: one per arity, for both operators.

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class Combine2Observable<E1, E2, Result>: Observable<Result>, @unchecked Sendable {
    private let source1: Observable<E1>
    private let source2: Observable<E2>
    private let mode: CombiningMode
    private let resultSelector: @Sendable (E1, E2) throws -> Result

    init(
        _ mode: CombiningMode, _ source1: Observable<E1>, _ source2: Observable<E2>,
        resultSelector: @escaping @Sendable (E1, E2) throws -> Result
    ) {
        self.source1 = source1
        self.source2 = source2
        self.mode = mode
        self.resultSelector = resultSelector
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        let sink = Combine2Sink(mode: mode, resultSelector: resultSelector, downstream: observer)
        sink.run(source1, source2)
        return sink
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class Combine3Observable<E1, E2, E3, Result>: Observable<Result>, @unchecked Sendable {
    private let source1: Observable<E1>
    private let source2: Observable<E2>
    private let source3: Observable<E3>
    private let mode: CombiningMode
    private let resultSelector: @Sendable (E1, E2, E3) throws -> Result

    init(
        _ mode: CombiningMode, _ source1: Observable<E1>, _ source2: Observable<E2>, _ source3: Observable<E3>,
        resultSelector: @escaping @Sendable (E1, E2, E3) throws -> Result
    ) {
        self.source1 = source1
        self.source2 = source2
        self.source3 = source3
        self.mode = mode
        self.resultSelector = resultSelector
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        let sink = Combine3Sink(mode: mode, resultSelector: resultSelector, downstream: observer)
        sink.run(source1, source2, source3)
        return sink
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class Combine4Observable<E1, E2, E3, E4, Result>: Observable<Result>, @unchecked Sendable {
    private let source1: Observable<E1>
    private let source2: Observable<E2>
    private let source3: Observable<E3>
    private let source4: Observable<E4>
    private let mode: CombiningMode
    private let resultSelector: @Sendable (E1, E2, E3, E4) throws -> Result

    init(
        _ mode: CombiningMode,
        _ source1: Observable<E1>, _ source2: Observable<E2>, _ source3: Observable<E3>, _ source4: Observable<E4>,
        resultSelector: @escaping @Sendable (E1, E2, E3, E4) throws -> Result
    ) {
        self.source1 = source1
        self.source2 = source2
        self.source3 = source3
        self.source4 = source4
        self.mode = mode
        self.resultSelector = resultSelector
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        let sink = Combine4Sink(mode: mode, resultSelector: resultSelector, downstream: observer)
        sink.run(source1, source2, source3, source4)
        return sink
    }
}

/// `zip` or `combineLatest` over a collection of sources.
// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class CombineCollectionObservable<SourceElement, Result>: Observable<Result>, @unchecked Sendable {
    private let mode: CombiningMode
    private let sources: [Observable<SourceElement>]
    private let resultSelector: @Sendable ([SourceElement]) throws -> Result

    init(
        _ mode: CombiningMode, sources: [Observable<SourceElement>],
        resultSelector: @escaping @Sendable ([SourceElement]) throws -> Result
    ) {
        self.mode = mode
        self.sources = sources
        self.resultSelector = resultSelector
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        guard !sources.isEmpty else {
            // RxSwift's rules: zip of nothing completes; combineLatest of nothing is one empty
            // combination, then completion.
            if mode == .combineLatest {
                do {
                    observer.onNext(try resultSelector([]))
                } catch {
                    observer.onError(error)
                    return NopDisposable.shared
                }
            }
            observer.onCompleted()
            return NopDisposable.shared
        }
        let sink = CombineCollectionSink(
            mode: mode, count: sources.count, resultSelector: resultSelector, downstream: observer
        )
        sink.run(sources)
        return sink
    }
}
