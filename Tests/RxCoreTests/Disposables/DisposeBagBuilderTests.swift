import RxCore
import RxTesting
import XCTest

/// `DisposeBag(disposing:)`, `DisposeBag { ... }` and `bag.insert { ... }` hold what they are given
/// and dispose it, in order, when the bag goes away.
final class DisposeBagBuilderTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testInsertBuilderDisposesTheListedSubscriptionsWhenTheBagGoes() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2)])
        let ys = scheduler.createHotObservable([.next(220, "a"), .next(270, "b")])
        let xsObserver = scheduler.createObserver(Int.self)
        let ysObserver = scheduler.createObserver(String.self)
        var bag: DisposeBag? = DisposeBag()
        scheduler.scheduleAt(200) {
            bag?.insert {
                xs.subscribe(xsObserver)
                ys.subscribe(ysObserver)
            }
        }
        scheduler.scheduleAt(250) { bag = nil }
        scheduler.start()
        XCTAssertEqual(xsObserver.events, [.next(210, 1)])
        XCTAssertEqual(ysObserver.events, [.next(220, "a")])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }

    func testBuilderInitDisposesInListedOrder() {
        let log = DisposeLog()
        var bag: DisposeBag? = DisposeBag {
            Disposables.create { log.record("closure 1") }
            ValueDisposable("value 2", log: log)
            Observable<Int>.never().subscribe(onDisposed: { log.record("subscription 3") })
        }
        XCTAssertEqual(log.count, 0, "the bag disposed something while alive")
        XCTAssertNotNil(bag)
        bag = nil
        XCTAssertEqual(log.names, ["closure 1", "value 2", "subscription 3"])
    }

    func testBuilderTakesConditionalsAndLoops() {
        let log = DisposeLog()
        let includeOptional = false
        let useFirst = true
        var bag: DisposeBag? = DisposeBag {
            ValueDisposable("start", log: log)
            if includeOptional {
                ValueDisposable("optional", log: log)
            }
            if useFirst {
                ValueDisposable("first", log: log)
            } else {
                ValueDisposable("second", log: log)
            }
            for index in 0..<3 {
                ValueDisposable("loop \(index)", log: log)
            }
        }
        XCTAssertNotNil(bag)
        bag = nil
        XCTAssertEqual(log.names, ["start", "first", "loop 0", "loop 1", "loop 2"])
    }

    func testAnEmptyBuilderMakesAnEmptyBag() {
        var bag: DisposeBag? = DisposeBag {}
        XCTAssertNotNil(bag)
        bag = nil
    }

    func testVariadicDisposingInitDisposesInOrder() {
        let log = DisposeLog()
        var bag: DisposeBag? = DisposeBag(
            disposing: ValueDisposable("value 1", log: log),
            Disposables.create { log.record("closure 2") }
        )
        XCTAssertNotNil(bag)
        XCTAssertEqual(log.count, 0)
        bag = nil
        XCTAssertEqual(log.names, ["value 1", "closure 2"])
    }

    func testArrayDisposingInitAndArrayInsertDisposeInOrder() {
        let log = DisposeLog()
        let first: [Disposable] = [ValueDisposable("value 1", log: log), Disposables.create { log.record("closure 2") }]
        var bag: DisposeBag? = DisposeBag(disposing: first)
        bag?.insert([ValueDisposable("value 3", log: log)])
        bag?.insert {
            ValueDisposable("value 4", log: log)
        }
        XCTAssertEqual(log.count, 0)
        bag = nil
        XCTAssertEqual(log.names, ["value 1", "closure 2", "value 3", "value 4"])
    }

    func testDisposingInitDisposesSubscriptionsAtTheTickTheBagGoes() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2)])
        let observer = scheduler.createObserver(Int.self)
        var bag: DisposeBag?
        scheduler.scheduleAt(200) { bag = DisposeBag(disposing: xs.subscribe(observer)) }
        scheduler.scheduleAt(240) { bag = nil }
        scheduler.start()
        XCTAssertNil(bag)
        XCTAssertEqual(observer.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }
}
