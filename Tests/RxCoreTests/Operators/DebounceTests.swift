import RxCore
import RxTesting
import XCTest

final class DebounceTests: RxTestCase {
    func testEmitsAnElementOnlyAfterAQuietDueTime() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([
            .next(150, 1), .next(210, 2), .next(230, 3), .next(300, 4), .next(400, 5), .completed(500),
        ])
        let res = scheduler.start { xs.debounce(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(260, 3), .next(330, 4), .next(430, 5), .completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
    }

    func testCompletionFlushesTheWaitingElementAtOnce() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(215, 2), .completed(220)])
        let res = scheduler.start { xs.debounce(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(220, 2), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        XCTAssertTrue(scheduler.isIdle, "the pending timer was cancelled")
    }

    func testAnErrorDropsTheWaitingElement() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, TestError.boom)])
        let res = scheduler.start { xs.debounce(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(220, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAStreamFasterThanTheDueTimeEmitsNothingUntilItPauses() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable((0..<10).map { Recorded.next(210 + 10 * $0, $0) })
        let res = scheduler.start { xs.debounce(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(320, 9)])
    }

    func testFractionalDueTimesAreNotTruncated() {
        let tenths = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        let xs = tenths.createHotObservable([.next(210, 1), .next(213, 2), .completed(300)])
        XCTAssertEqual(
            tenths.start { xs.debounce(.seconds(0.5), scheduler: tenths) }.events,
            [.next(218, 2), .completed(300)]
        )
        let millis = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let ys = millis.createHotObservable([.next(210, 1), .completed(900)])
        XCTAssertEqual(
            millis.start { ys.debounce(.seconds(0.5), scheduler: millis) }.events,
            [.next(710, 1), .completed(900)]
        )
    }

    func testDisposingWhileAnElementWaitsCancelsTheTimer() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 10, on: scheduler) {
            Observable<Int>.create { observer in
                observer.onNext(1)
                return Disposables.create()
            }
            .debounce(.seconds(50), scheduler: scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }
}
