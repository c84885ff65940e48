import RxCore
import RxTesting
import XCTest

/// `TestScheduler`'s default follows RxTest: work an operator schedules for "now" runs one tick
/// later; `simulateProcessingDelay: false` runs it at the current tick.
final class ProcessingDelayTests: RxTestCase {
    func testWorkScheduledForNowRunsOneTickLaterByDefault() {
        let scheduler = TestScheduler(initialClock: 0)
        var ranAt: [TestTime] = []
        scheduler.scheduleAt(200) {
            _ = scheduler.schedule(()) { _ in
                ranAt.append(scheduler.clock)
                return Disposables.create()
            }
            _ = scheduler.scheduleRelative((), dueTime: .seconds(0)) { _ in
                ranAt.append(scheduler.clock)
                return Disposables.create()
            }
            _ = scheduler.scheduleRelative((), dueTime: .seconds(5)) { _ in
                ranAt.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(ranAt, [201, 201, 205], "a due time in the future is not delayed")
    }

    func testWithoutTheDelayWorkForNowRunsAtTheCurrentTick() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        var ranAt: [TestTime] = []
        scheduler.scheduleAt(200) {
            _ = scheduler.schedule(()) { _ in
                ranAt.append(scheduler.clock)
                return Disposables.create()
            }
        }
        scheduler.start()
        XCTAssertEqual(ranAt, [200])
        XCTAssertFalse(scheduler.simulateProcessingDelay)
    }

    func testATimerDueNowFiresOneTickAfterSubscription() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start { Observable<Int>.timer(.seconds(0), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 0), .completed(201)])
    }

    func testAPeriodicTimerStartingNowCountsItsPeriodFromTheDelayedFirstRun() {
        let scheduler = TestScheduler(initialClock: 0)
        let res = scheduler.start(disposed: 232) {
            Observable<Int>.timer(.seconds(0), period: .seconds(10), scheduler: scheduler)
        }
        XCTAssertEqual(res.events, [.next(201, 0), .next(211, 1), .next(221, 2), .next(231, 3)])
    }

    func testIntervalsAndHotObservablesAreNotDelayed() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(250)])
        let hot = scheduler.start { xs.asObservable() }
        XCTAssertEqual(hot.events, [.next(210, 1), .completed(250)])

        let timed = TestScheduler(initialClock: 0)
        let res = timed.start(disposed: 235) { Observable<Int>.interval(.seconds(10), scheduler: timed) }
        XCTAssertEqual(res.events, [.next(210, 0), .next(220, 1), .next(230, 2)])
    }
}
