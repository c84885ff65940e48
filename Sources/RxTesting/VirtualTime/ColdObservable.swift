import RxCore

/// A testable observable that replays its events for each subscriber, at ticks relative to the
/// subscription (an event at 0 comes at the subscription's tick, after the work already queued).
// @unchecked Sendable: immutable; per-subscription state is in the returned disposables.
final class ColdObservable<Element>: TestableObservable<Element>, @unchecked Sendable {
    override func subscribeEvents(_ handler: @escaping @Sendable (Event<Element>) -> Void) -> Disposable {
        let scheduled = CompositeDisposable()
        for recorded in recordedEvents {
            let item = scheduler.scheduleRelative(ticks: recorded.time) {
                handler(recorded.value)
                return Disposables.create()
            }
            _ = scheduled.insert(item)
        }
        return scheduled
    }
}
