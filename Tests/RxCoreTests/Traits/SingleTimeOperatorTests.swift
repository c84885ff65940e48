import RxCore
import RxTesting
import XCTest

final class SingleTimeOperatorTests: RxTestCase {
    private func never() -> Single<Int> {
        Single.create { _ in Disposables.create() }
    }

    func testTimeoutFailsALateSingle() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let res = scheduler.start { self.never().timeout(.seconds(30), scheduler: scheduler).asObservable() }
        XCTAssertEqual(res.events, [.error(230, RxError.timeout)])
    }

    func testTimeoutLetsAnEarlySuccessThroughAndReleasesTheSource() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(220, 5), .completed(220)])
        let res = scheduler.start { xs.asSingle().timeout(.seconds(30), scheduler: scheduler).asObservable() }
        XCTAssertEqual(res.events, [.next(220, 5), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testTimeoutSwitchesToTheFallbackSingle() {
        let scheduler = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(300, 1), .completed(300)])
        let ys = scheduler.createColdObservable([.next(2, 9), .completed(2)])
        let res = scheduler.start {
            xs.asSingle().timeout(.seconds(0.5), other: ys.asSingle(), scheduler: scheduler).asObservable()
        }
        XCTAssertEqual(res.events, [.next(207, 9), .completed(207)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 205)])
        XCTAssertEqual(ys.subscriptions, [Subscription(205, 207)])
    }

    func testDelayShiftsSuccessButNotFailure() {
        let scheduler = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let success = scheduler.start {
            Single<Int>.create { single in
                single(.success(1))
                return Disposables.create()
            }
            .delay(.seconds(0.5), scheduler: scheduler).asObservable()
        }
        XCTAssertEqual(success.events, [.next(700, 1), .completed(700)])

        let failure = scheduler.start(created: 1_100, subscribed: 1_200, disposed: 2_000) {
            Single<Int>.create { single in
                single(.failure(TestError.boom))
                return Disposables.create()
            }
            .delay(.seconds(0.5), scheduler: scheduler).asObservable()
        }
        XCTAssertEqual(failure.events, [.error(1_200, TestError.boom)])
    }

    func testDelaySubscriptionWaitsBeforeSubscribing() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createColdObservable([.next(10, 3), .completed(10)])
        let res = scheduler.start { xs.asSingle().delaySubscription(.seconds(40), scheduler: scheduler).asObservable() }
        XCTAssertEqual(res.events, [.next(250, 3), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(240, 250)])
    }

    func testTimerSucceedsWithZeroAfterTheDueTime() {
        let scheduler = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        let res = scheduler.start { Single<Int>.timer(.seconds(0.5), scheduler: scheduler).asObservable() }
        XCTAssertEqual(res.events, [.next(205, 0), .completed(205)])
    }

    func testObserveOnAndSubscribeOnKeepTheResult() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(220, 4), .completed(220)])
        let res = scheduler.start {
            xs.asSingle().subscribe(on: scheduler).observe(on: scheduler).asObservable()
        }
        XCTAssertEqual(res.events, [.next(220, 4), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testDisposingATimedOutSingleWhileWaitingCancelsItsTimer() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 10, on: scheduler) {
            never().timeout(.seconds(30), scheduler: scheduler).asObservable()
        }
        XCTAssertTrue(scheduler.isIdle)
    }
}
