@_spi(RxNetworkKitInternals) import RxCore

/// A testable observable whose events happen at absolute ticks, scheduled when it is created, and
/// go to whoever is subscribed at that moment (in subscription order).
// @unchecked Sendable: the observers live in one LockedState; the rest is immutable.
final class HotObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    private struct Observers: Sendable {
        var nextKey = 0
        var handlers: [(key: Int, handler: @Sendable (Event<Element>) -> Void)] = []
    }

    private let observers = LockedState<Observers>.make(Observers())

    override init(scheduler: TestScheduler, recordedEvents: [Recorded<Event<Element>>]) {
        super.init(scheduler: scheduler, recordedEvents: recordedEvents)
        let observers = observers
        for recorded in recordedEvents {
            // The queued events hold the observer list, not this object nor the scheduler.
            scheduler.scheduleAt(recorded.time) {
                let handlers = observers.withLock { $0.handlers.map(\.handler) }
                for handler in handlers {
                    handler(recorded.value)
                }
            }
        }
    }

    override func subscribeEvents(_ handler: @escaping @Sendable (Event<Element>) -> Void) -> Disposable {
        let observers = observers
        let key = observers.withLock { observers -> Int in
            defer { observers.nextKey += 1 }
            observers.handlers.append((observers.nextKey, handler))
            return observers.nextKey
        }
        return Disposables.create {
            // The removed handler is released after unlocking.
            let removed = observers.withLock { observers -> [(key: Int, handler: @Sendable (Event<Element>) -> Void)] in
                let removed = observers.handlers.filter { $0.key == key }
                observers.handlers.removeAll { $0.key == key }
                return removed
            }
            _ = removed
        }
    }
}
