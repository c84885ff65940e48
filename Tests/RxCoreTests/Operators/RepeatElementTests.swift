import RxCore
import RxTesting
import XCTest

/// `Observable.repeatElement` emits its element forever, one scheduled action each, until the
/// subscription is disposed.
final class RepeatElementTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testRepeatsTheElementOncePerActionUntilDisposed() {
        let res = scheduler.start(disposed: 207) { [scheduler] in Observable.repeatElement(42, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 42), .next(202, 42), .next(203, 42), .next(204, 42), .next(205, 42), .next(206, 42)])
        XCTAssertTrue(scheduler.isIdle, "the pending action was cancelled")
    }

    func testOnTheDefaultSchedulerTakeStopsIt() {
        XCTAssertEqual(collect(Observable.repeatElement("a").take(3)), [.next("a"), .next("a"), .next("a"), .completed])
    }

    func testDisposingFromInsideOnNextStopsIt() {
        let subscription = SingleAssignmentDisposable()
        let received = DisposeLog()
        subscription.setDisposable(
            Observable.repeatElement(1, scheduler: scheduler).subscribe(onNext: { _ in
                received.record("next")
                if received.count == 5 { subscription.dispose() }
            })
        )
        scheduler.start()
        XCTAssertEqual(received.count, 5)
        XCTAssertTrue(scheduler.isIdle)
    }

    func testDisposingWhileAnActionIsPendingReleasesEverything() {
        assertDisposingWhileWaiting(at: 203, on: scheduler) { [scheduler] in
            Observable.repeatElement(1, scheduler: scheduler)
        }
    }
}
