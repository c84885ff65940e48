/// The buffers of `zip` or `combineLatest` over a collection of sources of one element type.
struct CombiningArrayBuffers<Element>: CombiningBuffers {
    private var buffers: [FIFOBuffer<Element>]
    /// How many buffers hold an element.
    private var nonEmptyCount = 0

    init(count: Int) {
        buffers = Array(repeating: FIFOBuffer(), count: count)
    }

    var isReady: Bool {
        !buffers.isEmpty && nonEmptyCount == buffers.count
    }

    mutating func record(_ element: Element, at index: Int, _ mode: CombiningMode) {
        if buffers[index].isEmpty {
            nonEmptyCount += 1
        }
        buffers[index].record(element, mode)
    }

    mutating func take(_ mode: CombiningMode) -> [Element] {
        var values: [Element] = []
        values.reserveCapacity(buffers.count)
        for index in buffers.indices {
            values.append(buffers[index].take(mode))
            if buffers[index].isEmpty {
                nonEmptyCount -= 1
            }
        }
        return values
    }

    mutating func removeAll() {
        buffers = []
        nonEmptyCount = 0
    }

    /// `zip` or `combineLatest` of `sources`.
    static func observable<Result>(
        _ mode: CombiningMode, _ sources: [Observable<Element>],
        combine: @escaping ([Element]) throws -> Result
    ) -> Observable<Result> {
        guard !sources.isEmpty else {
            // RxSwift's rules: zip of nothing is empty; combineLatest of nothing is one empty
            // combination.
            switch mode {
            case .zip: return .empty()
            case .combineLatest: return Observable.just(()).map { try combine([]) }
            }
        }
        return CombiningObservable(
            mode: mode, arity: sources.count, makeBuffers: { Self(count: sources.count) }, combine: combine
        ) { sink in
            sink.run(sources.indices.map { index in
                sink.observer(index: index) { $0.record($1, at: index, $2) }.subscription(to: sources[index])
            })
        }
    }
}
