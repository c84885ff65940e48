import RxCore
import RxTesting
import XCTest

/// `Observable.range(start:count:scheduler:)` emits `count` consecutive integers, one scheduled
/// action each; a negative count or a range past the type's end fails instead of trapping.
final class RangeTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testEmitsCountIntegersFromStartThenCompletes() {
        let res = scheduler.start { [scheduler] in Observable.range(start: -2, count: 4, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, -2), .next(202, -1), .next(203, 0), .next(204, 1), .completed(205)])
    }

    func testTheLastIntegerMayBeTheTypesMaximum() {
        let res = scheduler.start { [scheduler] in Observable.range(start: Int.max, count: 1, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, Int.max), .completed(202)])
        XCTAssertEqual(collect(Observable<UInt8>.range(start: 253, count: 3)), [.next(253), .next(254), .next(255), .completed])
        XCTAssertEqual(collect(Observable<Int8>.range(start: .min, count: 2)), [.next(-128), .next(-127), .completed])
    }

    func testACountOfZeroOnlyCompletes() {
        let res = scheduler.start { [scheduler] in Observable.range(start: 5, count: 0, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(201)])
    }

    func testANegativeCountFailsAtSubscription() {
        let res = scheduler.start { [scheduler] in Observable.range(start: 0, count: -1, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(200, RxError.argumentOutOfRange)])
        XCTAssertTrue(scheduler.isIdle, "nothing was scheduled")
    }

    func testARangePastTheTypesEndFailsInsteadOfOverflowing() {
        XCTAssertEqual(collect(Observable.range(start: Int.max, count: 2)), [.error(RxError.argumentOutOfRange)])
        XCTAssertEqual(collect(Observable<UInt8>.range(start: 200, count: 100)), [.error(RxError.argumentOutOfRange)])
        XCTAssertEqual(collect(Observable<Int8>.range(start: 2, count: .max)), [.error(RxError.argumentOutOfRange)])
        XCTAssertEqual(collect(Observable<Int8>.range(start: 1, count: .max)).last, .completed, "1...127 fits")
    }

    func testDisposingStopsTheRange() {
        let res = scheduler.start(disposed: 204) { [scheduler] in Observable.range(start: -10, count: 5, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, -10), .next(202, -9), .next(203, -8)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testOnTheDefaultSchedulerAHugeRangeStopsWhenTakeHasEnough() {
        XCTAssertEqual(collect(Observable.range(start: 0, count: Int.max).take(3)), [.next(0), .next(1), .next(2), .completed])
    }

    func testDisposingWhileAnActionIsPendingReleasesEverything() {
        assertDisposingWhileWaiting(at: 202, on: scheduler) { [scheduler] in
            Observable.range(start: 0, count: 10, scheduler: scheduler)
        }
    }
}
