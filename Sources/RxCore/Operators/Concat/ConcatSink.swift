import Synchronization

/// The state machine of `concat`: subscribes the sources one after the other, each when the
/// previous one has completed, on `ResubscribingSink`'s loop (so a hundred thousand synchronous
/// sources take constant stack depth, and a source that completes later, on another thread, moves
/// on there). Downstream is never called concurrently: the next source is subscribed only after the
/// previous one has sent its last event.
// @unchecked Sendable: `sources` is immutable and `nextIndex` atomic; the rest is ResubscribingSink's.
final class ConcatSink<Element>: ResubscribingSink<Element>, @unchecked Sendable {
    private let sources: [Observable<Element>]
    /// The next source to subscribe; advanced only by the owner of the loop.
    private let nextIndex = Atomic<Int>(0)

    init(sources: [Observable<Element>], downstream: ObserverNode<Element>) {
        self.sources = sources
        super.init(source: nil, downstream: downstream)
    }

    override func nextSource() -> Observable<Element>? {
        let index = nextIndex.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < sources.count ? sources[index] : nil
    }

    override func attemptCompleted() {
        resubscribe()
    }
}
