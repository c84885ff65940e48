import Synchronization

/// Disposes a disposable on a given scheduler (RxSwift's `ScheduledDisposable`): `dispose()` only
/// schedules the disposal, which runs in an action on `scheduler`.
///
/// Use it when a resource must be released on a particular thread or queue (a UI object on the
/// main scheduler, a handle owned by a serial queue), whoever disposes the subscription.
///
/// - Note: Thread-safe. `dispose()` may be called from any thread, any number of times: the first
///   call schedules one action, and the wrapped disposable is disposed exactly once, on `scheduler`.
public final class ScheduledDisposable: Cancelable {
    /// Where the wrapped disposable is disposed.
    public let scheduler: any ImmediateSchedulerType

    /// The wrapped disposable, until the scheduled action takes it.
    private let disposable: LockedState<Disposable?>
    /// Whether `dispose()` has scheduled the action.
    private let isScheduled = Atomic<Bool>(false)

    /// Creates a handle that disposes `disposable` on `scheduler`.
    ///
    /// - Parameters:
    ///   - scheduler: Where the disposal runs.
    ///   - disposable: The resource to release there.
    public init(scheduler: any ImmediateSchedulerType, disposable: Disposable) {
        self.scheduler = scheduler
        self.disposable = .make(disposable)
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    /// Whether the wrapped disposable has been disposed: false after `dispose()` until the
    /// scheduled action has run.
    public var isDisposed: Bool {
        disposable.withLock { $0 == nil }
    }

    /// Schedules the disposal of the wrapped disposable on `scheduler`; later calls do nothing.
    ///
    /// - Note: The scheduled action keeps this object alive until it runs. Returns at once unless
    ///   the scheduler runs the action synchronously (`CurrentThreadScheduler` on an idle thread,
    ///   `ImmediateScheduler`).
    public func dispose() {
        guard !isScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = scheduler.schedule(self) { scheduled in
            scheduled.disposeNow()
            return Disposables.create()
        }
    }

    /// The scheduled action: disposes the wrapped disposable, outside the lock.
    private func disposeNow() {
        let taken = disposable.withLock { disposable -> Disposable? in
            defer { disposable = nil }
            return disposable
        }
        taken?.dispose()
    }
}
