import Synchronization

extension ObservableType {
    /// Mirrors whichever source sends an event first (an element, an error or completion) and
    /// disposes all the others.
    ///
    /// - Parameter sources: The competing sequences, all subscribed at once; none gives a sequence
    ///   that never emits (as in RxSwift).
    /// - Returns: The winning source's sequence of events.
    /// - Note: The race is decided atomically: when sources send their first events concurrently,
    ///   exactly one wins and the events of the others are dropped. Events arrive on the winner's
    ///   thread.
    public static func amb<Sources: Sequence>(_ sources: Sources) -> Observable<Element>
    where Sources.Element == Observable<Element> {
        AmbObservable(sources: Array(sources))
    }

    /// Mirrors whichever of this sequence and `right` sends an event first, and disposes the other.
    ///
    /// - Parameter right: The competing sequence, subscribed right after this one.
    /// - Returns: The winning sequence's events.
    /// - Note: Exactly one wins even when both send concurrently; events arrive on the winner's
    ///   thread.
    public func amb<Source: ObservableConvertibleType>(_ right: Source) -> Observable<Element>
    where Source.Element == Element {
        AmbObservable(sources: [asObservable(), right.asObservable()])
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class AmbObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let sources: [Observable<Element>]

    init(sources: [Observable<Element>]) {
        self.sources = sources
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = AmbSink(downstream: observer)
        sink.run(sources)
        return sink
    }
}

/// The state machine of `amb`: the first source to send an event claims `winner` with a
/// compare-and-swap; from then on only its events pass, straight through without a lock, and the
/// losers are disposed.
// @unchecked Sendable: `winner` is atomic; `observers` is a LockedState.
final class AmbSink<Element>: Sink<Never, Element>, @unchecked Sendable {
    private static var noWinner: Int { -1 }

    /// The index of the winning source, or `noWinner`.
    private let winner = Atomic<Int>(-1)
    private let observers = LockedState<[AmbObserver<Element>]>.make([])

    func run(_ sources: [Observable<Element>]) {
        let created = sources.indices.map { AmbObserver(parent: self, index: $0) }
        observers.withLock { $0 = created }
        setUpstream(SubscriptionGroup(members: created))
        for (observer, source) in zip(created, sources) {
            guard !isStoppedOrDisposed, !hasLost(observer.index) else { break }
            let subscription = source.subscribe(observer)
            if observer.isDisposed {
                subscription.dispose()
            } else {
                observer.setUpstream(subscription)
            }
        }
    }

    /// Whether the source at `index` may pass its event on: it has won, or wins now.
    @inline(__always)
    func admits(_ index: Int) -> Bool {
        let current = winner.load(ordering: .acquiring)
        if current == index {
            return true
        }
        guard current == Self.noWinner else { return false }
        let claim = winner.compareExchange(expected: Self.noWinner, desired: index, ordering: .acquiringAndReleasing)
        guard claim.exchanged else { return false }
        for loser in observers.withLock({ $0 }) where loser.index != index {
            loser.dispose()
        }
        return true
    }

    override func didDispose() {
        // Breaks the cycle with the observers; they are released after unlocking.
        _ = observers.withLock { observers -> [AmbObserver<Element>] in
            defer { observers = [] }
            return observers
        }
        super.didDispose()
    }

    private func hasLost(_ index: Int) -> Bool {
        let current = winner.load(ordering: .acquiring)
        return current != Self.noWinner && current != index
    }
}

/// Observes one source of an `AmbSink`.
// @unchecked Sendable: immutable after init; the lifecycle word of SubscriptionNode is atomic.
final class AmbObserver<Element>: SubscriptionNode<Element>, @unchecked Sendable {
    private let parent: AmbSink<Element>
    let index: Int

    init(parent: AmbSink<Element>, index: Int) {
        self.parent = parent
        self.index = index
        super.init()
    }

    override func onNext(_ element: Element) {
        if !isStoppedOrDisposed && parent.admits(index) {
            parent.forwardNext(element)
        }
    }

    override func onError(_ error: Error) {
        if !isStoppedOrDisposed && parent.admits(index) {
            parent.forwardError(error)
        }
    }

    override func onCompleted() {
        if !isStoppedOrDisposed && parent.admits(index) {
            parent.forwardCompleted()
        }
    }
}
