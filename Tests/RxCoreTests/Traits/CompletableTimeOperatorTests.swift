import RxCore
import RxTesting
import XCTest

final class CompletableTimeOperatorTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    private func cold(_ events: [Recorded<Event<Never>>]) -> TestableObservable<Never> {
        scheduler.createColdObservable(events)
    }

    func testTimeoutFailsALateCompletableAndDisposesIt() {
        let xs = cold([.completed(20)])
        let res = scheduler.start { xs.asCompletable().timeout(.seconds(5), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.error(205, RxError.timeout)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 205)])
    }

    func testTimeoutLetsAnEarlyCompletionThroughAndCancelsTheTimer() {
        let xs = cold([.completed(20)])
        let res = scheduler.start { xs.asCompletable().timeout(.seconds(30), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.completed(220)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testTimeoutSwitchesToTheOtherCompletable() {
        let xs = cold([.completed(20)])
        let ys = cold([.error(20, TestError.boom)])
        let res = scheduler.start {
            xs.asCompletable().timeout(.seconds(5), other: ys.asCompletable(), scheduler: self.scheduler).asObservable()
        }
        XCTAssertEqual(res.events, [.error(225, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 205)])
        XCTAssertEqual(ys.subscriptions, [Subscription(205, 225)])
    }

    func testTimeoutKeepsAnOnTimeCompletableAndNeverSubscribesTheOther() {
        let xs = cold([.completed(20)])
        let ys = cold([.completed(20)])
        let res = scheduler.start {
            xs.asCompletable().timeout(.seconds(30), other: ys.asCompletable(), scheduler: self.scheduler).asObservable()
        }
        XCTAssertEqual(res.events, [.completed(220)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testDisposingATimedCompletableWhileWaitingCancelsItsTimer() {
        assertDisposingWhileWaiting(at: 10, on: scheduler) {
            Completable.never().timeout(.seconds(30), scheduler: scheduler).asObservable()
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testDelayShiftsCompletionButNotAnError() {
        let completed = scheduler.start { Completable.empty().delay(.seconds(2), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(completed.events, [.completed(202)])
        let failed = scheduler.start(created: 1_100, subscribed: 1_200, disposed: 2_000) {
            Completable.error(TestError.boom).delay(.seconds(2), scheduler: self.scheduler).asObservable()
        }
        XCTAssertEqual(failed.events, [.error(1_200, TestError.boom)])
    }

    func testDisposingADelayedCompletableWhileItWaitsCancelsTheTimer() {
        assertDisposingWhileWaiting(at: 1, on: scheduler) {
            Completable.empty().delay(.seconds(5), scheduler: scheduler).asObservable()
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testDelaySubscriptionSubscribesAfterTheDueTime() {
        let xs = cold([.completed(10)])
        let res = scheduler.start { xs.asCompletable().delaySubscription(.seconds(40), scheduler: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(240, 250)])
    }

    func testObserveOnDeliversTheEventThroughTheScheduler() {
        let xs = scheduler.createHotObservable([.error(210, TestError.boom, Never.self)])
        let res = scheduler.start { xs.asCompletable().observe(on: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [.error(210, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testSubscribeOnSubscribesOnlyWhenTheSchedulerRunsAndDisposesThere() {
        let xs = cold([.completed(5)])
        let observer = scheduler.createObserver(Never.self)
        let subscription = xs.asCompletable().subscribe(on: scheduler).asObservable().subscribe(observer)
        XCTAssertEqual(xs.subscriptions, [])
        scheduler.start()
        XCTAssertEqual(observer.events, [.completed(5)])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 5)])
        subscription.dispose()

        let ys = scheduler.createHotObservable([.completed(300, Never.self)])
        let res = scheduler.start(disposed: 250) { ys.asCompletable().subscribe(on: self.scheduler).asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }
}
