import RxCore
import RxTesting
import XCTest

/// `ReplayRelay` replays the last elements it accepted to each new subscriber and never terminates.
final class ReplayRelayTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testASubscriberOfAnEmptyRelayReceivesNothing() {
        let relay = ReplayRelay<Int>.create(bufferSize: 3)
        let observer = scheduler.createObserver(Int.self)
        let subscription = relay.subscribe(observer)
        XCTAssertEqual(observer.events, [])
        subscription.dispose()
    }

    func testFewerElementsThanTheBufferAreAllReplayed() {
        let relay = ReplayRelay<Int>.create(bufferSize: 3)
        let observer = scheduler.createObserver(Int.self)
        var subscription: Disposable?
        scheduler.scheduleAt(150) { relay.accept(1) }
        scheduler.scheduleAt(200) { relay.accept(2) }
        scheduler.scheduleAt(300) { subscription = relay.subscribe(observer) }
        scheduler.scheduleAt(400) { subscription?.dispose() }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(300, 1), .next(300, 2)])
    }

    func testOnlyTheLastBufferSizeElementsAreReplayed() {
        let relay = ReplayRelay<Int>.create(bufferSize: 3)
        let observer = scheduler.createObserver(Int.self)
        var subscription: Disposable?
        for (tick, value) in [(150, 1), (200, 2), (250, 3), (300, 4), (350, 5)] {
            scheduler.scheduleAt(TestTime(tick)) { relay.accept(value) }
        }
        scheduler.scheduleAt(400) { subscription = relay.subscribe(observer) }
        scheduler.scheduleAt(450) { relay.accept(6) }
        scheduler.scheduleAt(500) { subscription?.dispose() }
        scheduler.scheduleAt(550) { relay.accept(7) }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(400, 3), .next(400, 4), .next(400, 5), .next(450, 6)])
    }

    func testEarlyAndLateSubscribers() {
        let relay = ReplayRelay<Int>.create(bufferSize: 2)
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(150) { subscriptions.append(relay.subscribe(early)) }
        for (tick, value) in [(200, 1), (250, 2), (300, 3)] {
            scheduler.scheduleAt(TestTime(tick)) { relay.accept(value) }
        }
        scheduler.scheduleAt(350) { subscriptions.append(relay.subscribe(late)) }
        scheduler.scheduleAt(400) { relay.accept(4) }
        scheduler.start()
        XCTAssertEqual(early.events, [.next(200, 1), .next(250, 2), .next(300, 3), .next(400, 4)])
        XCTAssertEqual(late.events, [.next(350, 2), .next(350, 3), .next(400, 4)])
        subscriptions.forEach { $0.dispose() }
    }

    func testAnUnboundRelayReplaysEverything() {
        let relay = ReplayRelay<Int>.createUnbound()
        (1...100).forEach(relay.accept)
        let recorder = Recorder<Int>()
        recorder.subscribe(relay).dispose()
        XCTAssertEqual(recorder.elements, Array(1...100))
        XCTAssertEqual(recorder.terminalCount, 0)
    }

    func testABufferSizeOfZeroOrLessReplaysNothingAndDoesNotTrap() {
        for size in [0, -1, Int.min] {
            let relay = ReplayRelay<Int>.create(bufferSize: size)
            relay.accept(1)
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(relay)
            relay.accept(2)
            XCTAssertEqual(recorder.events, [.next(2)], "bufferSize \(size)")
            subscription.dispose()
        }
    }

    func testAHugeBufferSizeAllocatesNothingUpFront() {
        let relay = ReplayRelay<String>.create(bufferSize: Int.max)
        relay.accept("a")
        XCTAssertEqual(collect(relay.asObservable().take(1)), [.next("a"), .completed])
    }

    func testNeverTerminatesEvenWhenReleased() {
        var relay: ReplayRelay<Int>? = .create(bufferSize: 1)
        let observer = scheduler.createObserver(Int.self)
        let subscription = relay?.subscribe(observer)
        relay?.accept(1)
        relay = nil
        XCTAssertEqual(observer.events, [.next(0, 1)])
        subscription?.dispose()
    }

    func testWorksWithOperatorsThroughAsObservable() {
        let relay = ReplayRelay<Int>.create(bufferSize: 1)
        relay.accept(1)
        scheduler.scheduleAt(210) { relay.accept(2) }
        let res = scheduler.start { relay.asObservable().map { $0 * 10 } }
        XCTAssertEqual(res.events, [.next(200, 10), .next(210, 20)])
    }
}
