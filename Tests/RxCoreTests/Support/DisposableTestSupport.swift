import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// Records, in order, which disposables were disposed; shared by the disposables under test.
///
/// Behind a `LockedState` (a pthread mutex on Linux) rather than the standard library's `Mutex`,
/// whose futex ThreadSanitizer does not see: records made from several threads would otherwise be
/// reported as races.
final class DisposeLog: Sendable {
    private let entries = LockedState<[String]>.make([])

    /// The names recorded so far, in the order their `dispose()` ran.
    var names: [String] {
        entries.withLock { $0 }
    }

    /// How many `dispose()` calls were recorded.
    var count: Int {
        entries.withLock { $0.count }
    }

    func record(_ name: String) {
        entries.withLock { $0.append(name) }
    }
}

/// A value-type disposable: every `dispose()` call is recorded (a struct cannot remember that it
/// was disposed, so a second call would show as a second entry).
struct ValueDisposable: Disposable {
    let name: String
    let log: DisposeLog

    init(_ name: String = "value", log: DisposeLog) {
        self.name = name
        self.log = log
    }

    func dispose() {
        log.record(name)
    }
}

/// A scheduler that hands out every disposable of `base` wrapped in a `ValueDisposable`-like struct:
/// a user scheduler whose results are value types.
struct ValueDisposableScheduler: SchedulerType {
    let base: any SchedulerType
    let log: DisposeLog

    var now: Date { base.now }

    func schedule<StateType>(_ state: StateType, action: @escaping @Sendable (StateType) -> Disposable) -> Disposable {
        Wrapped(base: base.schedule(state, action: action), log: log)
    }

    func scheduleRelative<StateType>(
        _ state: StateType,
        dueTime: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> Disposable
    ) -> Disposable {
        Wrapped(base: base.scheduleRelative(state, dueTime: dueTime, action: action), log: log)
    }

    func schedulePeriodic<StateType>(
        _ state: StateType,
        startAfter: RxTimeInterval,
        period: RxTimeInterval,
        action: @escaping @Sendable (StateType) -> StateType
    ) -> Disposable {
        Wrapped(base: base.schedulePeriodic(state, startAfter: startAfter, period: period, action: action), log: log)
    }

    /// Records each `dispose()` and passes it on.
    struct Wrapped: Disposable {
        let base: Disposable
        let log: DisposeLog

        func dispose() {
            log.record("scheduled")
            base.dispose()
        }
    }
}
