import RxCore
import RxTesting
import XCTest

/// `skip(for:scheduler:)` drops what the source emits during a duration, then forwards the rest.
final class SkipForTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testAZeroDurationForwardsEverything() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.skip(for: .seconds(0), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testDropsTheElementsOfTheDurationAndForwardsTheLaterOnes() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.skip(for: .seconds(15), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testCompletionDuringTheDurationPassesThroughAndCancelsTheTimer() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.skip(for: .seconds(50), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testAnErrorDuringTheDurationPassesThrough() {
        let xs = scheduler.createHotObservable([.error(210, TestError.boom, Int.self)])
        let res = scheduler.start { xs.skip(for: .seconds(50), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.error(210, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testASilentSourceStaysSubscribedUntilDisposed() {
        let xs = scheduler.createHotObservable([] as [Recorded<Event<Int>>])
        let res = scheduler.start { xs.skip(for: .seconds(50), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1_000)])
    }

    func testTheLongerOfTwoDurationsWins() {
        let events: [Recorded<Event<Int>>] = [
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(260, 6), .completed(270),
        ]
        let expected: [Recorded<Event<Int>>] = [.next(240, 4), .next(250, 5), .next(260, 6), .completed(270)]
        let xs = scheduler.createHotObservable(events)
        let res = scheduler.start {
            xs.skip(for: .seconds(15), scheduler: self.scheduler).skip(for: .seconds(30), scheduler: self.scheduler)
        }
        XCTAssertEqual(res.events, expected)
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 270)])

        let other = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let ys = other.createHotObservable(events)
        let reversed = other.start {
            ys.skip(for: .seconds(30), scheduler: other).skip(for: .seconds(15), scheduler: other)
        }
        XCTAssertEqual(reversed.events, expected)
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 270)])
    }

    func testASynchronousSourceEndsBeforeTheTimerAndReleasesIt() {
        let res = scheduler.start { Observable.of(1, 2, 3).skip(for: .seconds(10), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.completed(200)])
        XCTAssertTrue(scheduler.isIdle, "the timer was cancelled")
    }

    func testDisposingBeforeTheDurationEndsCancelsTheTimerAndTheSource() {
        let xs = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        assertDisposingWhileWaiting(at: 30, on: scheduler) {
            xs.skip(for: .seconds(50), scheduler: self.scheduler)
        }
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 30)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testConformance() {
        assertOperatorBasics { $0.skip(for: .seconds(10), scheduler: self.scheduler) }
    }

    // MARK: RxSwift's spelling, skip(_:scheduler:)

    func testTheRxSwiftSpellingDropsTheElementsOfTheDuration() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start { xs.skip(.seconds(15), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.next(220, 2), .next(230, 3), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }

    func testTheRxSwiftSpellingCancelsItsTimerOnDispose() {
        let xs = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        assertDisposingWhileWaiting(at: 30, on: scheduler) {
            xs.skip(.milliseconds(50_000), scheduler: self.scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testTheRxSwiftSpellingAndSkipCountAreDistinctOverloads() {
        XCTAssertEqual(collect(Observable.of(1, 2, 3).skip(2)), [.next(3), .completed])
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.skip(.seconds(0), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
    }
}
