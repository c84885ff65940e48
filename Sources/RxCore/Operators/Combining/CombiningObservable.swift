/// `zip` or `combineLatest` over fixed sources: makes one `CombiningSink` per subscription.
// @unchecked Sendable: immutable after init.
final class CombiningObservable<Buffers: CombiningBuffers, Result>: Observable<Result>, @unchecked Sendable {
    private let mode: CombiningMode
    private let arity: Int
    private let makeBuffers: () -> Buffers
    private let combine: (Buffers.Values) throws -> Result
    /// Creates the sink's source observers and subscribes them (`CombiningSink.run(_:)`).
    private let start: (CombiningSink<Buffers, Result>) -> Void

    init(
        mode: CombiningMode,
        arity: Int,
        makeBuffers: @escaping () -> Buffers,
        combine: @escaping (Buffers.Values) throws -> Result,
        start: @escaping (CombiningSink<Buffers, Result>) -> Void
    ) {
        self.mode = mode
        self.arity = arity
        self.makeBuffers = makeBuffers
        self.combine = combine
        self.start = start
    }

    override func subscribe(_ observer: ObserverNode<Result>) -> ClassDisposable {
        let sink = CombiningSink(
            mode: mode, buffers: makeBuffers(), arity: arity, combine: combine, downstream: observer
        )
        start(sink)
        return sink
    }
}
