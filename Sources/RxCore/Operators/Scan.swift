extension ObservableType {
    /// Emits each intermediate value of an accumulation over the elements, starting from `seed`.
    ///
    /// - Parameters:
    ///   - seed: The initial accumulator value (not emitted by itself).
    ///   - accumulator: Updates the accumulator in place with an element; an error it throws
    ///     terminates the sequence with it and disposes the source.
    /// - Returns: The accumulator after each element.
    /// - Note: `accumulator` runs on the thread the element arrives on. Each subscription starts
    ///   from `seed` again. Thread-safe.
    public func scan<Accumulate>(
        into seed: Accumulate,
        accumulator: @escaping @Sendable (inout Accumulate, Element) throws -> Void
    ) -> Observable<Accumulate> {
        ScanObservable(source: asObservable(), seed: seed, accumulator: accumulator)
    }

    /// Emits each intermediate value of an accumulation over the elements, starting from `seed`.
    ///
    /// - Parameters:
    ///   - seed: The initial accumulator value (not emitted by itself).
    ///   - accumulator: Combines the accumulator and an element into the next accumulator; an error
    ///     it throws terminates the sequence with it and disposes the source.
    /// - Returns: The accumulator after each element.
    /// - Note: `accumulator` runs on the thread the element arrives on. Thread-safe.
    public func scan<Accumulate>(
        _ seed: Accumulate,
        accumulator: @escaping @Sendable (Accumulate, Element) throws -> Accumulate
    ) -> Observable<Accumulate> {
        ScanObservable(source: asObservable(), seed: seed) { accumulate, element in
            accumulate = try accumulator(accumulate, element)
        }
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure, except the
// elements it emits, handed across threads as every Rx element is (see `CapturedElement`).
final class ScanObservable<Element, Accumulate>: Observable<Accumulate>, @unchecked Sendable {
    private let source: Observable<Element>
    private let seed: Accumulate
    private let accumulator: @Sendable (inout Accumulate, Element) throws -> Void

    init(
        source: Observable<Element>,
        seed: Accumulate,
        accumulator: @escaping @Sendable (inout Accumulate, Element) throws -> Void
    ) {
        self.source = source
        self.seed = seed
        self.accumulator = accumulator
    }

    override func subscribe(_ observer: ObserverNode<Accumulate>) -> ClassDisposable {
        let sink = ScanSink(seed: seed, accumulator: accumulator, downstream: observer)
        sink.setUpstream(source.subscribe(sink))
        return sink
    }
}

// @unchecked Sendable: `accumulate` is touched only by upstream events, which arrive serialized.
final class ScanSink<Element, Accumulate>: Sink<Element, Accumulate>, @unchecked Sendable {
    private let accumulator: @Sendable (inout Accumulate, Element) throws -> Void
    private var accumulate: Accumulate

    init(
        seed: Accumulate,
        accumulator: @escaping @Sendable (inout Accumulate, Element) throws -> Void,
        downstream: ObserverNode<Accumulate>
    ) {
        self.accumulate = seed
        self.accumulator = accumulator
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        do {
            try accumulator(&accumulate, element)
        } catch {
            forwardError(error)
            return
        }
        forwardNext(accumulate)
    }

    override func onError(_ error: Error) {
        forwardError(error)
    }

    override func onCompleted() {
        forwardCompleted()
    }
}
