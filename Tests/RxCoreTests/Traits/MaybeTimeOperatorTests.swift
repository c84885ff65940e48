import RxCore
import RxTesting
import XCTest

final class MaybeTimeOperatorTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testDelayShiftsTheElementAndAnEmptyCompletionButNotAnError() {
        let success = scheduler.start { Maybe.just(1).delay(.seconds(2), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(success.events, [.next(202, 1), .completed(202)])

        let empty = scheduler.start(created: 1_100, subscribed: 1_200, disposed: 2_000) {
            Maybe<Int>.empty().delay(.seconds(2), scheduler: self.scheduler).asObservable()
        }
        XCTAssertEqual(empty.events, [.completed(1_202)])

        let failure = scheduler.start(created: 2_100, subscribed: 2_200, disposed: 3_000) {
            Maybe<Int>.error(TestError.boom).delay(.seconds(2), scheduler: self.scheduler).asObservable()
        }
        XCTAssertEqual(failure.events, [.error(2_200, TestError.boom)])
    }

    func testDisposingADelayedMaybeWhileItWaitsCancelsTheTimer() {
        assertDisposingWhileWaiting(at: 1, on: scheduler) {
            Maybe.just(1).delay(.seconds(5), scheduler: scheduler).asObservable()
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testDelaySubscriptionSubscribesAfterTheDueTime() {
        let xs = scheduler.createColdObservable([.next(10, 3), .completed(10)])
        let res = scheduler.start { xs.asMaybe().delaySubscription(.seconds(40), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.next(250, 3), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(240, 250)])
    }

    func testTimeoutFailsALateMaybeAndDisposesIt() {
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let res = scheduler.start { xs.asMaybe().timeout(.seconds(5), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.error(205, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 205)])
    }

    func testTimeoutLetsAnEarlyOutcomeThroughAndCancelsTheTimer() {
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let res = scheduler.start { xs.asMaybe().timeout(.seconds(30), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.next(220, 1), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testTimeoutSwitchesToTheOtherMaybe() {
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let ys = scheduler.createColdObservable([.completed(20, Int.self)])
        let res = scheduler.start {
            xs.asMaybe().timeout(.seconds(5), other: ys.asMaybe(), scheduler: self.scheduler).asObservable()
        }
        XCTAssertEqual(res.events, [.completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 205)])
        XCTAssertEqual(ys.subscriptions, [Subscription(205, 225)])
    }

    func testTimeoutKeepsTheSourceWhenItIsOnTimeAndNeverSubscribesTheOther() {
        let xs = scheduler.createColdObservable([.completed(20, Int.self)])
        let ys = scheduler.createColdObservable([.next(20, 2), .completed(20)])
        let res = scheduler.start {
            xs.asMaybe().timeout(.seconds(30), other: ys.asMaybe(), scheduler: self.scheduler).asObservable()
        }
        XCTAssertEqual(res.events, [.completed(220)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testDisposingATimedMaybeWhileWaitingCancelsItsTimer() {
        assertDisposingWhileWaiting(at: 10, on: scheduler) {
            Maybe<Int>.never().timeout(.seconds(30), scheduler: scheduler).asObservable()
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testObserveOnDeliversTheOutcomeThroughTheScheduler() {
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(210)])
        let res = scheduler.start { xs.asMaybe().observe(on: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(210)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testSubscribeOnSubscribesOnlyWhenTheSchedulerRunsAndDisposesThere() {
        let xs = scheduler.createColdObservable([.next(5, 1), .completed(5)])
        let observer = scheduler.createObserver(Int.self)
        let subscription = xs.asMaybe().subscribe(on: scheduler).asObservable().subscribe(observer)
        XCTAssertEqual(xs.subscriptions, [])
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(5, 1), .completed(5)])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 5)])
        subscription.dispose()

        let ys = scheduler.createHotObservable([.next(300, 4), .completed(300)])
        let res = scheduler.start(disposed: 250) { ys.asMaybe().subscribe(on: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }

    func testTimerSucceedsWithZeroAfterTheDueTime() {
        let res = scheduler.start { Maybe<Int>.timer(.seconds(2), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.next(202, 0), .completed(202)])
    }
}
