import Foundation
import RxCore
import RxTesting
import XCTest

final class TestSchedulerObservableTests: RxTestCase {
    func testStartRecordsEventsAndTheHotSourceLogsSubscribeAndDisposeTicks() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([
            .next(150, 1),
            .next(210, 2),
            .next(240, 3),
            .completed(300),
        ])
        let res = scheduler.start { xs.map { $0 * 10 } }
        XCTAssertEqual(res.events, [.next(210, 20), .next(240, 30), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testStartDisposesAtTheGivenTick() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2), .next(320, 3)])
        let res = scheduler.start(disposed: 300) { xs.asObservable() }
        XCTAssertEqual(res.events, [.next(210, 1), .next(260, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testStartHonoursCustomCreateAndSubscribeTicks() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var createdAt: TestTime?
        let xs = scheduler.createHotObservable([.next(205, "early"), .next(410, "late"), .completed(420)])
        let res = scheduler.start(created: 50, subscribed: 400, disposed: 500) { () -> Observable<String> in
            createdAt = scheduler.clock
            return xs.asObservable()
        }
        XCTAssertEqual(createdAt, 50)
        XCTAssertEqual(res.events, [.next(410, "late"), .completed(420)])
        XCTAssertEqual(xs.subscriptions, [Subscription(400, 420)])
    }

    func testColdObservableReplaysAtTicksRelativeToEachSubscription() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createColdObservable([.next(0, "a"), .next(10, "b"), .completed(20)])
        let first = scheduler.createObserver(String.self)
        let second = scheduler.createObserver(String.self)
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(100) { subscriptions.append(xs.subscribe(first)) }
        scheduler.scheduleAt(105) { subscriptions.append(xs.subscribe(second)) }
        scheduler.scheduleAt(200) { subscriptions.forEach { $0.dispose() } }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(100, "a"), .next(110, "b"), .completed(120)])
        XCTAssertEqual(second.events, [.next(105, "a"), .next(115, "b"), .completed(125)])
        XCTAssertEqual(xs.subscriptions, [Subscription(100, 200), Subscription(105, 200)])
    }

    func testDisposingAColdSubscriptionCancelsItsPendingEvents() throws {
        try XCTSkipUnless(Resources.isCounting)
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createColdObservable([.next(10, 1), .next(1_000, 2)])
        let observer = scheduler.createObserver(Int.self)
        let before = Resources.total
        var subscription: Disposable? = xs.asObservable().subscribe(observer)
        scheduler.advanceTo(50)
        subscription?.dispose()
        subscription = nil
        XCTAssertTrue(scheduler.isIdle, "the event at 1000 was removed from the queue")
        XCTAssertEqual(Resources.total, before)
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(10, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 50)])
    }

    func testHotObservableSendsOnlyToCurrentSubscribersInSubscriptionOrder() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(10, 1), .next(20, 2), .next(30, 3)])
        nonisolated(unsafe) var log: [String] = []
        var late: Disposable?
        let early = xs.asObservable().subscribe(onNext: { log.append("early \($0)") })
        scheduler.scheduleAt(15) {
            late = xs.asObservable().subscribe(onNext: { log.append("late \($0)") })
        }
        scheduler.scheduleAt(25) { early.dispose() }
        scheduler.start()
        late?.dispose()
        XCTAssertEqual(log, ["early 1", "early 2", "late 2", "late 3"])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 25), Subscription(15, 30)])
    }

    func testASubscriptionNeverDisposedIsLoggedWithIntMax() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([Recorded<Event<Int>>]())
        let subscription = xs.subscribe(scheduler.createObserver(Int.self))
        XCTAssertEqual(xs.subscriptions, [Subscription(0)])
        XCTAssertEqual(xs.subscriptions.first?.unsubscribe, Int.max)
        XCTAssertEqual(String(reflecting: Subscription(200)), "(200, never)")
        XCTAssertEqual(String(reflecting: Subscription(200, 1000)), "(200, 1000)")
        subscription.dispose()
    }

    func testTestableObserverStampsEventsWithTheClockAndRecordsWhatItIsSent() {
        let scheduler = TestScheduler(initialClock: 7, simulateProcessingDelay: false)
        let observer = scheduler.createObserver(Int.self)
        observer.onNext(1)
        scheduler.advanceTo(9)
        observer.onCompleted()
        observer.onNext(2)
        XCTAssertEqual(observer.events, [.next(7, 1), .completed(9), .next(9, 2)])
        XCTAssertEqual(String(reflecting: observer.events[0]), "next(1) @ 7")
    }

    func testStartReleasesTheSequenceAndItsSubscription() throws {
        try XCTSkipUnless(Resources.isCounting)
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let before = Resources.total
        let res = scheduler.start { Observable<Int>.never().map { $0 } }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(Resources.total, before)
    }
}
