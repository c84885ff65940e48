@_spi(RxNetworkKitInternals) import RxCore

/// An observer that records every event it receives with the tick of its `TestScheduler`.
///
/// Create one with `TestScheduler.createObserver(_:)`, or get one from `TestScheduler.start(...)`.
///
/// - Note: Thread-safe: events may arrive on any thread; each is stamped with the scheduler's clock
///   at arrival. It records what it is sent, grammar violations included.
// @unchecked Sendable: the recorded events live in one LockedState; the scheduler is Sendable.
public final class TestableObserver<Element>: ObserverType, @unchecked Sendable {
    /// The scheduler whose clock stamps the events.
    public let scheduler: TestScheduler

    private let recorded = LockedState<[Recorded<Event<Element>>]>.make([])

    init(scheduler: TestScheduler) {
        self.scheduler = scheduler
    }

    /// The events received so far, in order, with their ticks.
    public var events: [Recorded<Event<Element>>] {
        recorded.withLock { $0 }
    }

    /// Records `event` at the current tick.
    public func on(_ event: Event<Element>) {
        let time = scheduler.clock
        recorded.withLock { $0.append(Recorded(time: time, value: event)) }
    }
}
