import Synchronization

extension ObservableType {
    /// Subscribes to the source, and later disposes of that subscription, on `scheduler`.
    ///
    /// - Parameter scheduler: Where the source's subscribe (and dispose) work runs: use it to move
    ///   a blocking or slow subscription off the caller's thread.
    /// - Returns: The same events. Disposing stops delivery at once; the source's own subscription
    ///   is disposed by an action scheduled on `scheduler` (before it ran, the subscription is
    ///   cancelled instead).
    /// - Note: Events arrive on whichever thread the source sends them — `scheduler` for a source
    ///   that emits while subscribing; combine with `observe(on:)` to choose the delivery thread.
    ///   Thread-safe.
    public func subscribe(on scheduler: any ImmediateSchedulerType) -> Observable<Element> {
        SubscribeOnObservable(source: asObservable(), scheduler: scheduler)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class SubscribeOnObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let scheduler: any ImmediateSchedulerType

    init(source: Observable<Element>, scheduler: any ImmediateSchedulerType) {
        self.source = source
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = PassThroughSink(downstream: observer)
        // The scheduled action's result is the source's subscription, so disposing the action
        // cancels the subscribe if it has not run and disposes the subscription if it has.
        let subscribing = scheduler.schedule(source) { source in
            // Disposed while the subscribe waited: the disposal behind it has nothing to undo.
            sink.isDisposed ? Disposables.create() : source.subscribe(sink)
        }
        sink.setUpstream(ScheduledDisposal(scheduler: scheduler, disposable: subscribing))
        return sink
    }
}

/// Disposes a disposable on a scheduler, once.
final class ScheduledDisposal: Disposable {
    private let scheduler: any ImmediateSchedulerType
    private let disposable: Disposable
    private let disposed = Atomic<Bool>(false)

    init(scheduler: any ImmediateSchedulerType, disposable: Disposable) {
        self.scheduler = scheduler
        self.disposable = disposable
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    func dispose() {
        guard !disposed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = scheduler.schedule(disposable) { disposable in
            disposable.dispose()
            return Disposables.create()
        }
    }
}
