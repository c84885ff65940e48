import Dispatch
import RxCore
import RxTesting
import XCTest

/// `ConnectableObservableType`: `ConnectableObservable` conforms, and `refCount()` works for any
/// conformer, connecting on the first subscriber and disconnecting when the last one leaves or the
/// source terminates.
final class ConnectableObservableTypeTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testConnectableObservableConforms() {
        let log = DisposeLog()
        let connectable = Observable.of(1, 2).do(onNext: { log.record("\($0)") }).publish()
        let disconnect = connectAll([connectable])
        XCTAssertEqual(log.names, ["1", "2"])
        disconnect.dispose()
        XCTAssertEqual(collect(Observable.just(5).replayAll().refCount()), [.next(5), .completed])
    }

    func testRefCountConnectsOnTheFirstSubscriberAndDisconnectsOnCompletion() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .next(230, 3), .completed(250)])
        let connectable = CountingConnectable(xs.asObservable().multicast(makeSubject: { PublishSubject<Int>() }))
        let res = scheduler.start { connectable.refCount() }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .next(230, 3), .completed(250)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(connectable.log.names, ["connect", "disconnect"])
    }

    func testRefCountDoesNotConnectWhenTheSubjectHasAlreadyCompleted() {
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let subject = PublishSubject<Int>()
        subject.onCompleted()
        let connectable = CountingConnectable(xs.asObservable().multicast(subject))
        let res = scheduler.start { connectable.refCount() }
        XCTAssertEqual(res.events, [.completed(200)])
        XCTAssertEqual(xs.subscriptions, [])
        XCTAssertEqual(connectable.log.count, 0, "connected for a subscriber that had already ended")
    }

    func testRefCountDoesNotConnectWhenTheSubjectHasAlreadyFailed() {
        let xs = scheduler.createHotObservable([.next(210, 1)])
        let subject = PublishSubject<Int>()
        subject.onError(TestError.boom)
        let connectable = CountingConnectable(xs.asObservable().multicast(subject))
        let res = scheduler.start { connectable.refCount() }
        XCTAssertEqual(res.events, [.error(200, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testTheLastSubscriberLeavingDisconnectsAndTheNextOneReconnects() {
        let source = DrivenSource<Int>()
        let connectable = CountingConnectable(source.observable.publish())
        let shared = connectable.refCount()
        let first = shared.subscribe()
        let second = shared.subscribe()
        XCTAssertEqual(source.subscriptions, 1, "one connection for two subscribers")
        first.dispose()
        XCTAssertEqual(source.observerCount, 1, "disconnected while a subscriber remained")
        second.dispose()
        XCTAssertEqual(source.observerCount, 0)
        XCTAssertEqual(connectable.log.names, ["connect", "disconnect"])
        let third = shared.subscribe()
        XCTAssertEqual(source.subscriptions, 2)
        third.dispose()
        XCTAssertEqual(connectable.log.names, ["connect", "disconnect", "connect", "disconnect"])
    }

    func testSubscribersComingAndGoingShareConnectionsAsTheyOverlap() {
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(220, 2), .next(230, 3), .next(240, 4), .next(250, 5),
            .next(260, 6), .next(270, 7), .next(280, 8), .next(290, 9), .completed(300),
        ])
        let shared = CountingConnectable(xs.asObservable().publish()).refCount()
        let observers = (0..<4).map { _ in scheduler.createObserver(Int.self) }
        var subscriptions: [Int: Disposable] = [:]
        for (index, (from, to)) in [(215, 235), (225, 275), (255, 265), (285, 320)].enumerated() {
            scheduler.scheduleAt(TestTime(from)) { subscriptions[index] = shared.subscribe(observers[index]) }
            scheduler.scheduleAt(TestTime(to)) { subscriptions[index]?.dispose() }
        }
        scheduler.start()
        XCTAssertEqual(observers[0].events, [.next(220, 2), .next(230, 3)])
        XCTAssertEqual(observers[1].events, [.next(230, 3), .next(240, 4), .next(250, 5), .next(260, 6), .next(270, 7)])
        XCTAssertEqual(observers[2].events, [.next(260, 6)])
        XCTAssertEqual(observers[3].events, [.next(290, 9), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(215, 275), Subscription(285, 300)])
    }

    func testAnErrorReachesEverySubscriberAndDisconnects() {
        let source = DrivenSource<Int>()
        let connectable = CountingConnectable(source.observable.publish())
        let shared = connectable.refCount()
        let first = Recorder<Int>()
        let second = Recorder<Int>()
        let subscriptions = [first.subscribe(shared), second.subscribe(shared)]
        source.onNext(1)
        source.onError(TestError.boom)
        XCTAssertEqual(first.events, [.next(1), .error(TestError.boom)])
        XCTAssertEqual(second.events, [.next(1), .error(TestError.boom)])
        XCTAssertEqual(source.observerCount, 0)
        XCTAssertEqual(connectable.log.names, ["connect", "disconnect"])
        subscriptions.forEach { $0.dispose() }
        XCTAssertEqual(connectable.log.names, ["connect", "disconnect"], "a late dispose touched the ended connection")
    }

    func testConcurrentSubscribersConnectOncePerConnectionAndLeaveNothingBehind() {
        let source = DrivenSource<Int>()
        let connectable = CountingConnectable(source.observable.publish())
        let shared = connectable.refCount()
        let anchor = shared.subscribe()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 {
                shared.subscribe().dispose()
            }
        }
        XCTAssertEqual(source.subscriptions, 1, "the anchor kept one connection for everyone")
        anchor.dispose()
        XCTAssertEqual(source.observerCount, 0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 {
                shared.subscribe().dispose()
            }
        }
        XCTAssertEqual(source.observerCount, 0, "a connection outlived its last subscriber")
        let names = connectable.log.names
        XCTAssertEqual(names.filter { $0 == "connect" }.count, names.filter { $0 == "disconnect" }.count)
    }
}

/// Connects every one of `connectables` (any conformer) and returns one disposable for all.
private func connectAll<C: ConnectableObservableType>(_ connectables: [C]) -> Disposable {
    Disposables.create(connectables.map { $0.connect() })
}

/// A connectable sequence of another type than `ConnectableObservable`: it wraps one and records
/// each connection and disconnection.
private final class CountingConnectable: ConnectableObservableType {
    typealias Element = Int

    let log = DisposeLog()
    private let base: ConnectableObservable<Int>

    init(_ base: ConnectableObservable<Int>) {
        self.base = base
    }

    func connect() -> Disposable {
        log.record("connect")
        let connection = base.connect()
        return Disposables.create { [log] in
            log.record("disconnect")
            connection.dispose()
        }
    }

    func subscribe<Observer: ObserverType>(_ observer: Observer) -> Disposable where Observer.Element == Int {
        base.subscribe(observer)
    }

    func asObservable() -> Observable<Int> {
        base
    }
}
