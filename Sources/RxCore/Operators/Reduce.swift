extension ObservableType {
    /// Accumulates every element from `seed`, then emits `mapResult` of the final value and completes.
    ///
    /// - Parameters:
    ///   - seed: The initial accumulator value; an empty source yields `mapResult(seed)`.
    ///   - accumulator: Combines the accumulator and an element; an error it throws terminates the
    ///     sequence with it and disposes the source.
    ///   - mapResult: Turns the final accumulator into the result; an error it throws terminates the
    ///     sequence with it.
    /// - Returns: A sequence of one element, emitted when the source completes; an error from the
    ///   source passes through.
    /// - Note: The result is emitted on the thread the source completes on. Thread-safe.
    public func reduce<Accumulate, Result>(
        _ seed: Accumulate,
        accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate,
        mapResult: @escaping @Sendable (Accumulate) throws -> Result
    ) -> Observable<Result> {
        ReduceObservable(source: asObservable(), seed: seed, accumulator: accumulator, mapResult: mapResult)
    }

    /// Accumulates every element from `seed`, then emits the final value and completes.
    ///
    /// - Parameters:
    ///   - seed: The initial accumulator value; an empty source yields `seed`.
    ///   - accumulator: Combines the accumulator and an element; an error it throws terminates the
    ///     sequence with it and disposes the source.
    /// - Returns: A sequence of one element, emitted when the source completes.
    /// - Note: The result is emitted on the thread the source completes on. Thread-safe.
    public func reduce<Accumulate>(
        _ seed: Accumulate,
        accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate
    ) -> Observable<Accumulate> {
        ReduceObservable(source: asObservable(), seed: seed, accumulator: accumulator) { $0 }
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure, except the
// elements it emits, handed across threads as every Rx element is (see `CapturedElement`).
final class ReduceObservable<Element, Accumulate, Result>: Observable<Result>, @unchecked Sendable {
    private let source: Observable<Element>
    private let seed: Accumulate
    private let accumulator: @Sendable (Accumulate, Element) throws -> Accumulate
    private let mapResult: @Sendable (Accumulate) throws -> Result

    init(
        source: Observable<Element>,
        seed: Accumulate,
        accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate,
        mapResult: @escaping @Sendable (Accumulate) throws -> Result
    ) {
        self.source = source
        self.seed = seed
        self.accumulator = accumulator
        self.mapResult = mapResult
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        let sink = ReduceSink(seed: seed, accumulator: accumulator, mapResult: mapResult, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: `accumulate` is touched only by upstream events, which arrive serialized.
final class ReduceSink<Element, Accumulate, Result>: Sink<Element, Result>, @unchecked Sendable {
    private let accumulator: @Sendable (Accumulate, Element) throws -> Accumulate
    private let mapResult: @Sendable (Accumulate) throws -> Result
    private var accumulate: Accumulate

    init(
        seed: Accumulate,
        accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate,
        mapResult: @escaping @Sendable (Accumulate) throws -> Result,
        downstream: ObserverNode<Result>
    ) {
        self.accumulate = seed
        self.accumulator = accumulator
        self.mapResult = mapResult
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        do {
            accumulate = try accumulator(accumulate, element)
        } catch {
            forwardError(error)
        }
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        let result: Result
        do {
            result = try mapResult(accumulate)
        } catch {
            forwardError(error)
            return
        }
        forwardNext(result)
        forwardCompleted()
    }
}
