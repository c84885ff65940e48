import RxCore
import RxTesting
import XCTest

final class TimeoutTests: RxTestCase {
    func testASourceThatKeepsUpPassesUnchanged() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([
            .next(150, 0), .next(210, 1), .next(230, 2), .next(250, 3), .completed(270),
        ])
        let res = scheduler.start { xs.timeout(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .next(250, 3), .completed(270)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 270)])
    }

    func testFailsWhenTheFirstElementIsLate() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(250, 1), .completed(260)])
        let res = scheduler.start { xs.timeout(.seconds(20), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.error(220, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testTheTimerRestartsAfterEveryElement() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(240, 2), .next(280, 3)])
        let res = scheduler.start { xs.timeout(.seconds(35), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2), .error(275, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 275)])
    }

    func testSourceErrorsPassThroughAndCancelTheTimer() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, TestError.boom)])
        let res = scheduler.start { xs.timeout(.seconds(30), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .error(220, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testSwitchesToOtherAtTheTimeOutAndSubscribesItOnlyThen() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(300, 2)])
        let ys = scheduler.createColdObservable([.next(10, 100), .next(20, 200), .completed(30)])
        let res = scheduler.start { xs.timeout(.seconds(50), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(270, 100), .next(280, 200), .completed(290)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 260)])
        XCTAssertEqual(ys.subscriptions, [Subscription(260, 290)])
    }

    func testOtherIsNeverSubscribedWhenTheSourceKeepsUp() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let ys = scheduler.createColdObservable([.next(10, 100)])
        let res = scheduler.start { xs.timeout(.seconds(50), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(220)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testDisposingAfterTheSwitchDisposesOther() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>]())
        let ys = scheduler.createHotObservable([.next(500, 5), .next(1_100, 6)])
        let res = scheduler.start { xs.timeout(.seconds(100), other: ys, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(500, 5)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(300, 1_000)])
    }

    func testFractionalDueTimesAreNotTruncated() {
        let tenths = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        let slow = tenths.createHotObservable([.next(210, 1)])
        XCTAssertEqual(
            tenths.start { slow.timeout(.seconds(0.5), scheduler: tenths) }.events,
            [.error(205, RxError.timeout)]
        )
        XCTAssertEqual(slow.subscriptions, [Subscription(200, 205)])

        let millis = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let fast = millis.createHotObservable([.next(650, 1), .next(1_200, 2)])
        XCTAssertEqual(
            millis.start(disposed: 2_000) { fast.timeout(.milliseconds(500), scheduler: millis) }.events,
            [.next(650, 1), .error(1_150, RxError.timeout)]
        )
        XCTAssertEqual(fast.subscriptions, [Subscription(200, 1_150)])
    }

    func testDisposingWhileWaitingCancelsTheTimer() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 30, on: scheduler) {
            Observable<Int>.never().timeout(.seconds(50), scheduler: scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testTimeoutStopsIteratingASynchronousOtherOnceDownstreamIsDone() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var pulled = 0
        // Long but finite, so that the broken behaviour fails the assertion instead of hanging.
        let naturals = sequence(first: 0) { value -> Int? in
            pulled += 1
            return value < 100_000 ? value + 1 : nil
        }
        let res = scheduler.start {
            Observable<Int>.never()
                .timeout(.seconds(10), other: Observable.from(naturals), scheduler: scheduler)
                .take(2)
        }
        XCTAssertEqual(res.events, [.next(210, 0), .next(210, 1), .completed(210)])
        XCTAssertLessThanOrEqual(pulled, 2, "`from` must see that nobody listens behind the timeout any more")
    }
}
