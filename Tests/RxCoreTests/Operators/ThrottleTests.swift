import RxCore
import RxTesting
import XCTest

final class ThrottleTests: RxTestCase {
    private func source(_ scheduler: TestScheduler) -> TestableObservable<Int> {
        scheduler.createHotObservable([
            .next(150, 0),
            .next(210, 1), .next(220, 2), .next(230, 3),
            .next(300, 4), .next(320, 5),
            .next(400, 6),
            .completed(500),
        ])
    }

    func testLatestEmitsTheFirstAtOnceAndTheNewestOfEachWindowAtItsEnd() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = source(scheduler)
        let res = scheduler.start { xs.throttle(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [
            .next(210, 1), .next(260, 3), .next(310, 4), .next(360, 5), .next(410, 6), .completed(500),
        ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
    }

    func testWithoutLatestElementsInsideTheWindowAreDropped() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = source(scheduler)
        let res = scheduler.start { xs.throttle(.seconds(50), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(300, 4), .next(400, 6), .completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 500)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testAnElementExactlyOneDueTimeLaterGoesOutAtOnce() {
        let scheduler = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(710, 2), .next(1_210, 3)])
        let res = scheduler.start(disposed: 2_000) { xs.throttle(.seconds(0.5), latest: false, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(710, 2), .next(1_210, 3)])
    }

    func testCompletionWaitsForTheKeptElement() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.throttle(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(260, 2), .completed(260)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)], "the ended source is released at once")
    }

    func testAnErrorIsPassedOnAtOnceDroppingTheKeptElement() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .error(230, TestError.boom)])
        let res = scheduler.start { xs.throttle(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .error(230, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testFractionalDueTimesAreNotTruncated() {
        let tenths = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        let xs = tenths.createHotObservable([.next(210, 1), .next(212, 2), .completed(300)])
        XCTAssertEqual(
            tenths.start { xs.throttle(.seconds(0.5), scheduler: tenths) }.events,
            [.next(210, 1), .next(215, 2), .completed(300)]
        )
        let millis = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let ys = millis.createHotObservable([.next(210, 1), .next(300, 2), .completed(900)])
        XCTAssertEqual(
            millis.start { ys.throttle(.seconds(0.5), scheduler: millis) }.events,
            [.next(210, 1), .next(710, 2), .completed(900)]
        )
    }

    func testDisposingWhileAnElementIsKeptCancelsTheTimer() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 10, on: scheduler) {
            Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onNext(2)
                return Disposables.create()
            }
            .throttle(.seconds(50), scheduler: scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }
}
