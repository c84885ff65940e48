import RxCore
import RxTesting
import XCTest

/// `PublishRelay` forwards accepted elements to the subscribers of the moment and never terminates.
final class PublishRelayTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testSubscribersReceiveTheElementsAcceptedWhileSubscribed() {
        let relay = PublishRelay<Int>()
        scheduler.scheduleAt(150) { relay.accept(1) }
        scheduler.scheduleAt(210) { relay.accept(2) }
        scheduler.scheduleAt(220) { relay.accept(3) }
        scheduler.scheduleAt(1_100) { relay.accept(4) }
        let res = scheduler.start { relay.asObservable() }
        XCTAssertEqual(res.events, [.next(210, 2), .next(220, 3)])
    }

    func testEachSubscriberGetsWhatIsAcceptedAfterItSubscribed() {
        let relay = PublishRelay<String>()
        let early = scheduler.createObserver(String.self)
        let late = scheduler.createObserver(String.self)
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(100) { subscriptions.append(relay.subscribe(early)) }
        scheduler.scheduleAt(110) { relay.accept("a") }
        scheduler.scheduleAt(120) { subscriptions.append(relay.subscribe(late)) }
        scheduler.scheduleAt(130) { relay.accept("b") }
        scheduler.scheduleAt(140) { subscriptions[0].dispose() }
        scheduler.scheduleAt(150) { relay.accept("c") }
        scheduler.start()
        XCTAssertEqual(early.events, [.next(110, "a"), .next(130, "b")])
        XCTAssertEqual(late.events, [.next(130, "b"), .next(150, "c")])
        subscriptions.forEach { $0.dispose() }
    }

    func testNeverTerminatesEvenWhenReleased() {
        var relay: PublishRelay<Int>? = PublishRelay()
        let observer = scheduler.createObserver(Int.self)
        let subscription = relay?.asObservable().subscribe(observer)
        relay?.accept(1)
        relay = nil
        XCTAssertEqual(observer.events, [.next(0, 1)], "no terminal event, even when the relay goes away")
        subscription?.dispose()
    }

    func testWorksWithOperatorsThroughAsObservable() {
        let relay = PublishRelay<Int>()
        scheduler.scheduleAt(210) { relay.accept(1) }
        scheduler.scheduleAt(220) { relay.accept(2) }
        let res = scheduler.start { relay.asObservable().map { $0 * 10 } }
        XCTAssertEqual(res.events, [.next(210, 10), .next(220, 20)])
    }
}
