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
