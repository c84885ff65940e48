@_spi(RxNetworkKitInternals) import RxCore

/// A scripted observable for tests: sends `recordedEvents` in virtual time and logs every
/// subscription (subscribe and dispose ticks) in `subscriptions`.
///
/// Made by `TestScheduler.createHotObservable(_:)` (events at absolute ticks, whoever listens) or
/// `createColdObservable(_:)` (events at ticks relative to each subscription). It is an
/// `ObservableType`, so every operator applies to it directly.
///
/// - Note: Events are sent on the thread driving the scheduler. Thread-safe. It sends exactly what
///   it was given, events after a terminal one included; the operators under test filter them.
// @unchecked Sendable: the subscription log and the observers live in LockedStates; the rest is
// immutable.
public class TestableObservable<Element>: ObservableType, @unchecked Sendable {
    /// The scheduler that drives the events.
    public let scheduler: TestScheduler
    /// The scripted events.
    public let recordedEvents: [Recorded<Event<Element>>]

    private let subscriptionLog = LockedState<[Subscription]>.make([])

    init(scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        self.scheduler = scheduler
        self.recordedEvents = recordedEvents
    }

    /// Every subscription so far, in order; `unsubscribe` is `Int.max` for those still active.
    public var subscriptions: [Subscription] {
        subscriptionLog.withLock { $0 }
    }

    /// Subscribes `observer` and logs the subscription at the current tick.
    public func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable
    where Observer.Element == Element {
        let log = subscriptionLog
        let scheduler = scheduler
        let index = log.withLock { log -> Int in
            log.append(Subscription(scheduler.clock))
            return log.count - 1
        }
        let events = subscribeEvents { [observer = AnyObserver(observer)] in observer.on($0) }
        return Disposables.create {
            let time = scheduler.clock
            log.withLock { log in
                log[index] = Subscription(log[index].subscribe, time)
            }
            events.dispose()
        }
    }

    /// Wraps this as an `Observable`.
    public func asObservable() -> Observable<Element> {
        Observable.create { [self] observer in subscribe(observer) }
    }

    /// Starts delivering events to `handler`; overridden by the hot and cold variants.
    func subscribeEvents(_ handler: @escaping @Sendable (Event<Element>) -> Void) -> Disposable {
        Disposables.create()
    }
}
