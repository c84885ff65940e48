import Dispatch
import RxCore
import RxTesting
import XCTest

/// `take(for:scheduler:)` forwards what the source emits during a duration, then completes.
final class TakeForTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testAZeroDurationCompletesAtOnceAndDisposesTheSource() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.take(for: .seconds(0), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.completed(200)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 200)])
    }

    func testForwardsElementsUntilTheDurationEndsThenCompletes() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(240)])
        let res = scheduler.start { xs.take(for: .seconds(25), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 225)])
    }

    func testAnElementAtTheTickTheDurationEndsStillPasses() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2)])
        let res = scheduler.start { xs.take(for: .seconds(10), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(210)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testTheSourceCompletingFirstCompletesAndCancelsTheTimer() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testAnErrorFromTheSourcePassesThrough() {
        let xs = scheduler.createHotObservable([.error(210, TestError.boom, Int.self)])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.error(210, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testASilentSourceCompletesWhenTheDurationEnds() {
        let xs = scheduler.createHotObservable([] as [Recorded<Event<Int>>])
        let res = scheduler.start { xs.take(for: .seconds(50), scheduler: self.scheduler) }
        XCTAssertEqual(res.events, [.completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testTheShorterOfTwoDurationsWins() {
        let events: [Recorded<Event<Int>>] = [
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5), .next(260, 6), .completed(270),
        ]
        let xs = scheduler.createHotObservable(events)
        let res = scheduler.start {
            xs.take(for: .seconds(55), scheduler: self.scheduler).take(for: .seconds(35), scheduler: self.scheduler)
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(235)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 235)])

        let other = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let ys = other.createHotObservable(events)
        let reversed = other.start {
            ys.take(for: .seconds(35), scheduler: other).take(for: .seconds(55), scheduler: other)
        }
        XCTAssertEqual(reversed.events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(235)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 235)])
    }

    func testFractionalDurationsAreNotTruncated() {
        let tenths = TestScheduler(initialClock: 0, resolution: 0.1, simulateProcessingDelay: false)
        let xs = tenths.createHotObservable([.next(203, 1), .next(204, 2), .next(206, 3)])
        let res = tenths.start { xs.take(for: .milliseconds(500), scheduler: tenths) }
        XCTAssertEqual(res.events, [.next(203, 1), .next(204, 2), .completed(205)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 205)])
    }

    func testDisposingBeforeTheDurationEndsCancelsTheTimerAndTheSource() {
        let xs = scheduler.createColdObservable([.next(10, 1), .next(100, 2)])
        assertDisposingWhileWaiting(at: 30, on: scheduler) {
            xs.take(for: .seconds(50), scheduler: self.scheduler)
        }
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 30)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testConformance() {
        assertOperatorBasics { $0.take(for: .seconds(10), scheduler: self.scheduler) }
    }

    func testTheTimerFiringWhileTheSourceEmitsOnAnotherThreadKeepsTheGrammar() {
        let queue = SerialDispatchQueueScheduler(qos: .userInitiated, internalSerialQueueName: "take-for")
        for _ in 0..<100 {
            let source = DrivenSource<Int>()
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(source.observable.take(for: .microseconds(50), scheduler: queue))
            for value in 0..<200 { source.onNext(value) }
            let deadline = Date().addingTimeInterval(2)
            // The completion may come from the timer's thread, which disposes the chain right after:
            // wait for the end of the subscription, not just for the terminal event.
            while recorder.disposed == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            subscription.dispose()
            recorder.assertOneTerminal()
            XCTAssertEqual(recorder.events.last, .completed)
            XCTAssertEqual(recorder.elements, Array(0..<recorder.elements.count), "a prefix of the source")
            XCTAssertEqual(source.observerCount, 0)
        }
    }
}
