import RxCore
import RxTesting
import XCTest

final class TimerTests: RxTestCase {
    func testOneShotTimerEmitsZeroThenCompletesAtTheDueTick() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let res = scheduler.start { Observable<Int>.timer(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(250, 0), .completed(250)])
    }

    func testPeriodicTimerEmitsCountsAfterTheDueTimeThenEveryPeriod() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let res = scheduler.start(disposed: 400) {
            Observable<Int>.timer(.seconds(50), period: .seconds(30), scheduler: scheduler)
        }
        XCTAssertEqual(res.events, [.next(250, 0), .next(280, 1), .next(310, 2), .next(340, 3), .next(370, 4)])
    }

    func testFractionalDueTimesAreNotTruncated() {
        let tenths = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        XCTAssertEqual(
            tenths.start { Observable<Int>.timer(.seconds(0.5), scheduler: tenths) }.events,
            [.next(205, 0), .completed(205)]
        )
        let millis = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        XCTAssertEqual(
            millis.start { Observable<Int>.timer(.milliseconds(500), scheduler: millis) }.events,
            [.next(700, 0), .completed(700)]
        )
        let seconds = TestScheduler(resolution: 1, simulateProcessingDelay: false)
        XCTAssertEqual(
            seconds.start { Observable<Int>.timer(.seconds(0.5), scheduler: seconds) }.events,
            [.next(201, 0), .completed(201)],
            "half a second at one-second ticks is one tick, never zero"
        )
    }

    func testOtherIntegerTypesCountToo() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let res = scheduler.start(disposed: 230) {
            Observable<UInt8>.timer(.zero, period: .seconds(10), scheduler: scheduler)
        }
        XCTAssertEqual(res.events, [.next(200, 0), .next(210, 1), .next(220, 2)])
    }

    func testNeverDueTimerNeverFiresAndKeepsNothingQueued() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let res = scheduler.start { Observable<Int>.timer(.never, scheduler: scheduler) }
        XCTAssertEqual(res.events, [])
    }

    func testDisposingAOneShotTimerWhileWaitingCancelsIt() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 20, on: scheduler) {
            Observable<Int>.timer(.seconds(50), scheduler: scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testDisposingAPeriodicTimerBetweenTicksCancelsIt() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 75, on: scheduler) {
            Observable<Int>.timer(.seconds(10), period: .seconds(30), scheduler: scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }
}
