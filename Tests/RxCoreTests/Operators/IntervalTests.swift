import Foundation
import RxCore
import RxTesting
import XCTest

final class IntervalTests: RxTestCase {
    func testEmitsCountsEveryPeriodUntilDisposed() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let res = scheduler.start { Observable<Int>.interval(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, (0..<7).map { Recorded.next(300 + 100 * $0, $0) })
        XCTAssertTrue(scheduler.isIdle, "dispose at 1000 removed the next tick")
    }

    func testFractionalPeriodsAreNotTruncated() {
        let tenths = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        let res = tenths.start(disposed: 216) { Observable<Int>.interval(.seconds(0.5), scheduler: tenths) }
        XCTAssertEqual(res.events, [.next(205, 0), .next(210, 1), .next(215, 2)])

        let millis = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let fine = millis.start(disposed: 1_300) { Observable<Int>.interval(.milliseconds(500), scheduler: millis) }
        XCTAssertEqual(fine.events, [.next(700, 0), .next(1_200, 1)])
    }

    func testDisposingBetweenTicksCancelsTheTimer() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 250, on: scheduler) {
            Observable<Int>.interval(.seconds(100), scheduler: scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testRunsOnADispatchSchedulerAndStopsOnDispose() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "interval-test")
        let three = expectation(description: "three ticks")
        let seen = LockedBox<[Int]>([])
        let subscription = Observable<Int>.interval(.milliseconds(5), scheduler: scheduler)
            .subscribe(onNext: { value in
                seen.mutate { $0.append(value) }
                if value == 2 { three.fulfill() }
            })
        wait(for: [three], timeout: 2)
        subscription.dispose()
        let countAtDispose = seen.value.count
        Thread.sleep(forTimeInterval: 0.03)
        XCTAssertEqual(Array(seen.value.prefix(3)), [0, 1, 2])
        XCTAssertLessThanOrEqual(seen.value.count, countAtDispose + 1)
    }
}
