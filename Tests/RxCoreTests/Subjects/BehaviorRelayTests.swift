import RxCore
import RxTesting
import XCTest

/// `BehaviorRelay` holds a current value, replays it to each new subscriber, and never terminates.
final class BehaviorRelayTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testSubscribersReceiveTheCurrentValueThenEveryAcceptedOne() {
        let relay = BehaviorRelay(value: 0)
        scheduler.scheduleAt(150) { relay.accept(1) }
        scheduler.scheduleAt(210) { relay.accept(2) }
        scheduler.scheduleAt(220) { relay.accept(3) }
        scheduler.scheduleAt(1_100) { relay.accept(4) }
        let res = scheduler.start { relay.asObservable() }
        XCTAssertEqual(res.events, [.next(200, 1), .next(210, 2), .next(220, 3)])
        XCTAssertEqual(relay.value, 4)
    }

    func testValueIsTheInitialOneThenTheLastAccepted() {
        let relay = BehaviorRelay(value: "initial")
        XCTAssertEqual(relay.value, "initial")
        relay.accept("a")
        relay.accept("b")
        XCTAssertEqual(relay.value, "b")
    }

    func testALateSubscriberGetsOnlyTheLatestValue() {
        let relay = BehaviorRelay(value: 0)
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(100) { subscriptions.append(relay.subscribe(early)) }
        scheduler.scheduleAt(110) { relay.accept(1) }
        scheduler.scheduleAt(115) { relay.accept(2) }
        scheduler.scheduleAt(120) { subscriptions.append(relay.subscribe(late)) }
        scheduler.scheduleAt(130) { subscriptions[0].dispose() }
        scheduler.scheduleAt(140) { relay.accept(3) }
        scheduler.start()
        XCTAssertEqual(early.events, [.next(100, 0), .next(110, 1), .next(115, 2)])
        XCTAssertEqual(late.events, [.next(120, 2), .next(140, 3)])
        subscriptions.forEach { $0.dispose() }
    }

    func testNeverTerminatesEvenWhenReleased() {
        var relay: BehaviorRelay<Int>? = BehaviorRelay(value: 1)
        let observer = scheduler.createObserver(Int.self)
        let subscription = relay?.subscribe(observer)
        relay = nil
        XCTAssertEqual(observer.events, [.next(0, 1)], "no terminal event, even when the relay goes away")
        subscription?.dispose()
    }
}
