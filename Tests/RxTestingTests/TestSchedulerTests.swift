import Dispatch
import Foundation
import RxCore
import RxTesting
import Synchronization
import XCTest

final class TestSchedulerTests: RxTestCase {
    func testActionsRunInTickOrderAndSameTickInSchedulingOrder() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var log: [String] = []
        scheduler.scheduleAt(20) { log.append("b@\(scheduler.clock)") }
        scheduler.scheduleAt(10) { log.append("a@\(scheduler.clock)") }
        scheduler.scheduleAt(20) { log.append("c@\(scheduler.clock)") }
        scheduler.scheduleAt(20) { log.append("d@\(scheduler.clock)") }
        XCTAssertTrue(log.isEmpty, "nothing runs before the clock is driven")
        scheduler.start()
        XCTAssertEqual(log, ["a@10", "b@20", "c@20", "d@20"])
        XCTAssertEqual(scheduler.clock, 20)
        XCTAssertTrue(scheduler.isIdle)
    }

    func testWorkScheduledFromAnActionForTheSameTickRunsAfterWhatIsAlreadyQueued() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var log: [String] = []
        scheduler.scheduleAt(10) {
            log.append("first")
            _ = scheduler.schedule(()) { _ in
                log.append("nested@\(scheduler.clock)")
                return Disposables.create()
            }
        }
        scheduler.scheduleAt(10) { log.append("second") }
        scheduler.start()
        XCTAssertEqual(log, ["first", "second", "nested@10"])
    }

    func testWorkForAPastTickRunsAtTheCurrentOneAndTheClockNeverGoesBack() {
        let scheduler = TestScheduler(initialClock: 50, simulateProcessingDelay: false)
        var ranAt: [TestTime] = []
        scheduler.scheduleAt(10) { ranAt.append(scheduler.clock) }
        scheduler.start()
        XCTAssertEqual(ranAt, [50])
        XCTAssertEqual(scheduler.clock, 50)
    }

    func testIntervalsRoundToTheNearestTickButAPositiveIntervalIsNeverZeroTicks() {
        let seconds = TestScheduler(resolution: 1.0, simulateProcessingDelay: false)
        XCTAssertEqual(seconds.ticks(for: .seconds(0.5)), 1, "0.5 s must not truncate to 0")
        XCTAssertEqual(seconds.ticks(for: .milliseconds(1)), 1)
        XCTAssertEqual(seconds.ticks(for: .seconds(1.4)), 1)
        XCTAssertEqual(seconds.ticks(for: .seconds(1.6)), 2)
        XCTAssertEqual(seconds.ticks(for: .zero), 0)
        XCTAssertEqual(seconds.ticks(for: .seconds(-3)), 0)
        XCTAssertNil(seconds.ticks(for: .never))

        let tenths = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        XCTAssertEqual(tenths.ticks(for: .seconds(0.5)), 5)
        XCTAssertEqual(tenths.ticks(for: .seconds(0.3)), 3, "0.3 / 0.1 is 2.9999…; it must round, not truncate")
        let millis = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        XCTAssertEqual(millis.ticks(for: .seconds(0.5)), 500)
        XCTAssertEqual(millis.ticks(for: .milliseconds(300)), 300)
    }

    func testScheduleRelativeUsesTheConvertedTicks() {
        let scheduler = TestScheduler(initialClock: 100, resolution: 0.1, simulateProcessingDelay: false)
        var ranAt: [TestTime] = []
        _ = scheduler.scheduleRelative((), dueTime: .seconds(0.5)) { _ in
            ranAt.append(scheduler.clock)
            return Disposables.create()
        }
        _ = scheduler.scheduleRelative((), dueTime: .never) { _ in
            ranAt.append(-1)
            return Disposables.create()
        }
        XCTAssertEqual(scheduler.isIdle, false)
        scheduler.start()
        XCTAssertEqual(ranAt, [105])
    }

    func testNowFollowsTheClockAtTheResolution() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.001, simulateProcessingDelay: false)
        XCTAssertEqual(scheduler.now, Date(timeIntervalSinceReferenceDate: 0))
        scheduler.advanceTo(1_500)
        XCTAssertEqual(scheduler.now.timeIntervalSinceReferenceDate, 1.5, accuracy: 1e-12)
        scheduler.advanceTo(1_800)
        XCTAssertEqual(scheduler.now.timeIntervalSince(Date(timeIntervalSinceReferenceDate: 1.5)), 0.3, accuracy: 1e-12)
    }

    func testInvalidResolutionFallsBackToOneSecond() {
        XCTAssertEqual(TestScheduler(resolution: 0, simulateProcessingDelay: false).resolution, 1.0)
        XCTAssertEqual(TestScheduler(resolution: -.infinity, simulateProcessingDelay: false).resolution, 1.0)
    }

    func testAdvanceToRunsOnlyDueWorkThenSetsTheClock() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var log: [TestTime] = []
        for time in [10, 20, 30] {
            scheduler.scheduleAt(time) { log.append(scheduler.clock) }
        }
        scheduler.advanceTo(20)
        XCTAssertEqual(log, [10, 20])
        XCTAssertEqual(scheduler.clock, 20)
        scheduler.advanceTo(25)
        XCTAssertEqual(scheduler.clock, 25)
        scheduler.advanceTo(5)
        XCTAssertEqual(scheduler.clock, 25, "the clock never goes back")
        scheduler.advance(by: 5)
        XCTAssertEqual(log, [10, 20, 30])
        XCTAssertEqual(scheduler.clock, 30)
        scheduler.advance(by: .seconds(2.4))
        XCTAssertEqual(scheduler.clock, 32)
    }

    func testStopEndsTheRunAfterTheCurrentActionAndStartResumes() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var log: [TestTime] = []
        scheduler.scheduleAt(10) {
            log.append(10)
            scheduler.stop()
        }
        scheduler.scheduleAt(20) { log.append(20) }
        scheduler.start()
        XCTAssertEqual(log, [10])
        XCTAssertEqual(scheduler.clock, 10)
        scheduler.advanceTo(15)
        XCTAssertEqual(scheduler.clock, 15)
        scheduler.start()
        XCTAssertEqual(log, [10, 20])
    }

    func testDrivingTheClockFromInsideAnActionDoesNothing() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var log: [TestTime] = []
        scheduler.scheduleAt(10) {
            scheduler.advanceTo(500)
            scheduler.start()
            log.append(scheduler.clock)
        }
        scheduler.scheduleAt(20) { log.append(scheduler.clock) }
        scheduler.start()
        XCTAssertEqual(log, [10, 20])
    }

    func testDisposingPendingWorkRemovesItAndReleasesWhatItCaptured() throws {
        try XCTSkipUnless(Resources.isCounting)
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let before = Resources.total
        var ran = false
        let captured = BooleanDisposable()
        let item = scheduler.scheduleRelative((), dueTime: .seconds(30)) { _ in
            ran = true
            return captured
        }
        XCTAssertFalse(scheduler.isIdle)
        XCTAssertGreaterThan(Resources.total, before)
        item.dispose()
        XCTAssertTrue(scheduler.isIdle, "a disposed item leaves the queue at once")
        scheduler.start()
        XCTAssertFalse(ran)
        XCTAssertEqual(scheduler.clock, 0, "removed work does not move the clock")
        XCTAssertEqual(Resources.total, before + 1, "only the handle itself is left")
    }

    func testDisposingAfterTheActionRanDisposesWhatItReturned() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let inner = BooleanDisposable()
        let item = scheduler.schedule(()) { _ in inner }
        scheduler.start()
        XCTAssertFalse(inner.isDisposed)
        item.dispose()
        XCTAssertTrue(inner.isDisposed)
    }

    func testPeriodicWorkRunsAtExactTicksThreadsStateAndStopsOnDispose() {
        let scheduler = TestScheduler(resolution: 1.0, simulateProcessingDelay: false)
        var seen: [String] = []
        let periodic = scheduler.schedulePeriodic(0, startAfter: .seconds(1), period: .seconds(1.4)) { count in
            seen.append("\(count)@\(scheduler.clock)")
            return count + 1
        }
        scheduler.advanceTo(9)
        // Due at 1.0, 2.4, 3.8, 5.2, 6.6, 8.0, 9.4 s from the start, each rounded: no accumulated drift
        // (rounding the period alone would give one tick apart: 1, 2, 3, …).
        XCTAssertEqual(seen, ["0@1", "1@2", "2@4", "3@5", "4@7", "5@8", "6@9"])
        periodic.dispose()
        XCTAssertTrue(scheduler.isIdle)
        scheduler.advanceTo(100)
        XCTAssertEqual(seen.count, 7)
    }

    func testPeriodicWorkWithAZeroPeriodAdvancesOneTickPerRun() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var ticks: [TestTime] = []
        let periodic = scheduler.schedulePeriodic((), startAfter: .seconds(2), period: .zero) { _ in
            ticks.append(scheduler.clock)
        }
        scheduler.advanceTo(5)
        periodic.dispose()
        XCTAssertEqual(ticks, [2, 3, 4, 5])
    }

    func testSchedulingAndDisposingFromManyThreadsIsSafe() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let ran = RunCounter()
        let kept = DisposableList()
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            let item = scheduler.scheduleRelative(index, dueTime: .seconds(Double(index % 7 + 1))) { _ in
                ran.increment()
                return Disposables.create()
            }
            if index.isMultiple(of: 2) {
                item.dispose()
            } else {
                kept.append(item)
            }
            _ = scheduler.clock
            _ = scheduler.now
        }
        scheduler.start()
        XCTAssertEqual(ran.value, 200)
        XCTAssertEqual(scheduler.clock, 7)
        kept.removeAll()
    }
}

/// An `Int` counter safe to bump from any thread.
private final class RunCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .acquiring) }

    func increment() {
        count.add(1, ordering: .relaxed)
    }
}

/// A list of disposables safe to append to from any thread (an NSLock: ThreadSanitizer does not
/// see the futex behind `Synchronization.Mutex` on Linux and reports false races).
private final class DisposableList: @unchecked Sendable {
    // @unchecked Sendable: `items` is only touched under `lock`.
    private let lock = NSLock()
    private var items: [Disposable] = []

    func append(_ item: Disposable) {
        lock.lock()
        defer { lock.unlock() }
        items.append(item)
    }

    func removeAll() {
        lock.lock()
        let removed = items
        items = []
        lock.unlock()
        _ = removed
    }
}
