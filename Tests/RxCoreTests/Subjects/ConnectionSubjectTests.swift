import RxCore
import RxTesting
import XCTest

/// `publish()`, `replay(_:)` and `replayAll()` build a fresh subject per connection (RxSwift's
/// `multicast { subject }`); `multicast(_:)` with a given subject keeps that one subject.
final class ConnectionSubjectTests: RxTestCase {
    func testPublishGivesEachConnectionAFreshSubject() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(310, 2), .next(410, 3), .completed(500)])
        let published = xs.publish()
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        var connection: Disposable?
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(200) { subscriptions.append(published.subscribe(first)); connection = published.connect() }
        scheduler.scheduleAt(300) { connection?.dispose() }
        scheduler.scheduleAt(350) { subscriptions.append(published.subscribe(second)); connection = published.connect() }
        scheduler.scheduleAt(600) { connection?.dispose(); subscriptions.forEach { $0.dispose() } }
        scheduler.start()

        XCTAssertEqual(first.events, [.next(210, 1)], "the first connection's subscriber hears nothing of the second")
        XCTAssertEqual(second.events, [.next(410, 3), .completed(500)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300), Subscription(350, 500)])
    }

    func testReplayStartsEachConnectionWithAnEmptyBuffer() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(410, 3)])
        let replayed = xs.replay(2)
        let early = scheduler.createObserver(Int.self)
        let late = scheduler.createObserver(Int.self)
        var connection: Disposable?
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(200) { subscriptions.append(replayed.subscribe(early)); connection = replayed.connect() }
        scheduler.scheduleAt(300) { connection?.dispose() }
        scheduler.scheduleAt(400) { connection = replayed.connect() }
        scheduler.scheduleAt(405) { subscriptions.append(replayed.subscribe(late)) }
        scheduler.scheduleAt(600) { connection?.dispose(); subscriptions.forEach { $0.dispose() } }
        scheduler.start()

        XCTAssertEqual(early.events, [.next(210, 1), .next(220, 2)])
        XCTAssertEqual(late.events, [.next(410, 3)], "nothing of the first connection is replayed")
    }

    func testReplayAllReplaysOnlyTheCurrentConnection() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(410, 2), .next(420, 3)])
        let replayed = xs.replayAll()
        let late = scheduler.createObserver(Int.self)
        var connection: Disposable?
        var subscription: Disposable?
        scheduler.scheduleAt(200) { connection = replayed.connect() }
        scheduler.scheduleAt(300) { connection?.dispose() }
        scheduler.scheduleAt(400) { connection = replayed.connect() }
        scheduler.scheduleAt(430) { subscription = replayed.subscribe(late) }
        scheduler.scheduleAt(600) { connection?.dispose(); subscription?.dispose() }
        scheduler.start()

        XCTAssertEqual(late.events, [.next(430, 2), .next(430, 3)])
    }

    func testMulticastWithAGivenSubjectKeepsItAcrossConnections() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(410, 2)])
        let shared = xs.multicast(PublishSubject<Int>())
        let observer = scheduler.createObserver(Int.self)
        var connection: Disposable?
        var subscription: Disposable?
        scheduler.scheduleAt(200) { subscription = shared.subscribe(observer); connection = shared.connect() }
        scheduler.scheduleAt(300) { connection?.dispose() }
        scheduler.scheduleAt(400) { connection = shared.connect() }
        scheduler.scheduleAt(600) { connection?.dispose(); subscription?.dispose() }
        scheduler.start()

        XCTAssertEqual(observer.events, [.next(210, 1), .next(410, 2)])
    }
}
