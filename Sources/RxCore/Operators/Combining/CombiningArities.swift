// The fixed arities of `zip` and `combineLatest`: each is its buffers and how its sources subscribe.

struct CombiningBuffers2<E1, E2>: CombiningBuffers {
    var first = FIFOBuffer<E1>()
    var second = FIFOBuffer<E2>()

    var isReady: Bool {
        @inline(__always) get { !first.isEmpty && !second.isEmpty }
    }

    mutating func take(_ mode: CombiningMode) -> (E1, E2) {
        (first.take(mode), second.take(mode))
    }

    mutating func removeAll() {
        self = Self()
    }

    static func observable<Result>(
        _ mode: CombiningMode, _ source1: Observable<E1>, _ source2: Observable<E2>,
        combine: @escaping ((E1, E2)) throws -> Result
    ) -> Observable<Result> {
        CombiningObservable(mode: mode, arity: 2, makeBuffers: Self.init, combine: combine) { sink in
            sink.run([
                sink.observer(index: 0) { $0.first.record($1, $2) }.subscription(to: source1),
                sink.observer(index: 1) { $0.second.record($1, $2) }.subscription(to: source2),
            ])
        }
    }
}

struct CombiningBuffers3<E1, E2, E3>: CombiningBuffers {
    var first = FIFOBuffer<E1>()
    var second = FIFOBuffer<E2>()
    var third = FIFOBuffer<E3>()

    var isReady: Bool {
        @inline(__always) get { !first.isEmpty && !second.isEmpty && !third.isEmpty }
    }

    mutating func take(_ mode: CombiningMode) -> (E1, E2, E3) {
        (first.take(mode), second.take(mode), third.take(mode))
    }

    mutating func removeAll() {
        self = Self()
    }

    static func observable<Result>(
        _ mode: CombiningMode, _ source1: Observable<E1>, _ source2: Observable<E2>, _ source3: Observable<E3>,
        combine: @escaping ((E1, E2, E3)) throws -> Result
    ) -> Observable<Result> {
        CombiningObservable(mode: mode, arity: 3, makeBuffers: Self.init, combine: combine) { sink in
            sink.run([
                sink.observer(index: 0) { $0.first.record($1, $2) }.subscription(to: source1),
                sink.observer(index: 1) { $0.second.record($1, $2) }.subscription(to: source2),
                sink.observer(index: 2) { $0.third.record($1, $2) }.subscription(to: source3),
            ])
        }
    }
}

struct CombiningBuffers4<E1, E2, E3, E4>: CombiningBuffers {
    var first = FIFOBuffer<E1>()
    var second = FIFOBuffer<E2>()
    var third = FIFOBuffer<E3>()
    var fourth = FIFOBuffer<E4>()

    var isReady: Bool {
        @inline(__always) get { !first.isEmpty && !second.isEmpty && !third.isEmpty && !fourth.isEmpty }
    }

    mutating func take(_ mode: CombiningMode) -> (E1, E2, E3, E4) {
        (first.take(mode), second.take(mode), third.take(mode), fourth.take(mode))
    }

    mutating func removeAll() {
        self = Self()
    }

    static func observable<Result>(
        _ mode: CombiningMode,
        _ source1: Observable<E1>, _ source2: Observable<E2>, _ source3: Observable<E3>, _ source4: Observable<E4>,
        combine: @escaping ((E1, E2, E3, E4)) throws -> Result
    ) -> Observable<Result> {
        CombiningObservable(mode: mode, arity: 4, makeBuffers: Self.init, combine: combine) { sink in
            sink.run([
                sink.observer(index: 0) { $0.first.record($1, $2) }.subscription(to: source1),
                sink.observer(index: 1) { $0.second.record($1, $2) }.subscription(to: source2),
                sink.observer(index: 2) { $0.third.record($1, $2) }.subscription(to: source3),
                sink.observer(index: 3) { $0.fourth.record($1, $2) }.subscription(to: source4),
            ])
        }
    }
}
