import RxCore
import RxTesting
import XCTest

final class DelaySubscriptionTests: RxTestCase {
    func testSubscribesAfterTheDueTime() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(260, 2), .next(320, 3), .completed(400),
        ])
        let res = scheduler.start { xs.delaySubscription(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(260, 2), .next(320, 3), .completed(400)])
        XCTAssertEqual(xs.subscriptions, [Subscription(250, 400)])
    }

    func testDisposingAfterTheSubscriptionDisposesTheSource() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(260, 2), .next(1_100, 3)])
        let res = scheduler.start { xs.delaySubscription(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(260, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(250, 1_000)])
    }

    func testFractionalDelaysAreNotTruncated() {
        let tenths = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        let xs = tenths.createColdObservable([.next(10, 1), .completed(20)])
        XCTAssertEqual(
            tenths.start { xs.delaySubscription(.seconds(0.5), scheduler: tenths) }.events,
            [.next(215, 1), .completed(225)]
        )
        XCTAssertEqual(xs.subscriptions, [Subscription(205, 225)])

        let millis = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let ys = millis.createColdObservable([.completed(0, Int.self)])
        XCTAssertEqual(millis.start { ys.delaySubscription(.seconds(0.5), scheduler: millis) }.events, [.completed(700)])
        XCTAssertEqual(ys.subscriptions, [Subscription(700, 700)])
    }

    func testDisposingBeforeTheDueTimeNeverSubscribes() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createColdObservable([.next(10, 1)])
        assertDisposingWhileWaiting(at: 30, on: scheduler) {
            xs.delaySubscription(.seconds(50), scheduler: scheduler)
        }
        XCTAssertEqual(xs.subscriptions, [])
        XCTAssertTrue(scheduler.isIdle)
    }
}
