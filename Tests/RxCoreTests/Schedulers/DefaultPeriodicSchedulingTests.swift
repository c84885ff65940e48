import Foundation
import RxCore
import RxTesting
import XCTest

/// `schedulePeriodic` as a scheduler without a native timer gets it: by chaining relative schedules.
final class DefaultPeriodicSchedulingTests: RxTestCase {
    func testAFirstRunThatFiresBeforeItsScheduleReturnsIsNotKeptOverTheNextOne() {
        // given a scheduler whose first relative schedule runs at once, before it returns (another
        // thread's timer firing that early), and whose later ones wait
        let scheduler = FirstRunInlineScheduler()
        let runs = LockedBox(0)
        // when periodic work starts, runs once, and is disposed
        let work = scheduler.schedulePeriodic(0, startAfter: .seconds(1), period: .seconds(1)) { count in
            runs.mutate { $0 += 1 }
            return count + 1
        }
        XCTAssertEqual(runs.value, 1)
        XCTAssertEqual(scheduler.pending.count, 1, "the second run is scheduled")
        work.dispose()
        // then the schedule of the second run is cancelled, not left to fire into disposed work
        XCTAssertEqual(scheduler.pending.map(\.isDisposed), [true])
        scheduler.runPending()
        XCTAssertEqual(runs.value, 1)
    }

    func testRunsInOrderThreadingTheStateAndStopsOnDispose() {
        let scheduler = FirstRunInlineScheduler()
        let seen = LockedBox<[Int]>([])
        let work = scheduler.schedulePeriodic(10, startAfter: .seconds(1), period: .seconds(1)) { count in
            seen.mutate { $0.append(count) }
            return count + 1
        }
        scheduler.runPending()
        scheduler.runPending()
        XCTAssertEqual(seen.value, [10, 11, 12])
        work.dispose()
        scheduler.runPending()
        XCTAssertEqual(seen.value, [10, 11, 12], "nothing runs after dispose")
    }
}

/// Runs its first relative schedule inline; keeps the later ones until `runPending()`.
// @unchecked Sendable: the queue of pending actions is only touched under `lock`.
private final class FirstRunInlineScheduler: SchedulerType, @unchecked Sendable {
    final class Pending {
        let action: () -> Void
        let cancel = BooleanDisposable()
        var isDisposed: Bool { cancel.isDisposed }

        init(action: @escaping () -> Void) {
            self.action = action
        }
    }

    private let lock = NSLock()
    private var firstDone = false
    private var queue: [Pending] = []

    var now: Date { Date(timeIntervalSince1970: 0) }

    var pending: [Pending] { lock.withLock { queue } }

    func schedule<StateType>(_ state: StateType, action: @escaping (StateType) -> Disposable) -> Disposable {
        action(state)
    }

    func scheduleRelative<StateType>(
        _ state: StateType, dueTime: RxTimeInterval, action: @escaping (StateType) -> Disposable
    ) -> Disposable {
        let runInline = lock.withLock { () -> Bool in
            defer { firstDone = true }
            return !firstDone
        }
        if runInline {
            return action(state)
        }
        let item = Pending { _ = action(state) }
        lock.withLock { queue.append(item) }
        return item.cancel
    }

    /// Runs the oldest pending action unless it was cancelled.
    func runPending() {
        let next = lock.withLock { queue.isEmpty ? nil : queue.removeFirst() }
        if let next, !next.isDisposed {
            next.action()
        }
    }
}
