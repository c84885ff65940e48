import RxCore
import RxTesting
import XCTest

/// `multicast(_:selector:)` shares one subscription to the source, through a subject made per
/// subscription, among every use of it inside the selector.
final class MulticastSelectorTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)
    private let events: [Recorded<Event<Int>>] = [
        .next(150, 0), .next(210, 1), .next(240, 2), .next(270, 3), .completed(300),
    ]

    func testForwardsTheSelectorsResultWhileTheSourceRuns() {
        let xs = scheduler.createHotObservable(events)
        let res = scheduler.start { xs.multicast({ PublishSubject<Int>() }, selector: { $0 }) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2), .next(270, 3), .completed(300)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testTheSourcesErrorEndsTheSubscription() {
        let xs = scheduler.createHotObservable([.next(210, 1), .error(250, TestError.boom)])
        let res = scheduler.start { xs.multicast({ PublishSubject<Int>() }, selector: { $0 }) }
        XCTAssertEqual(res.events, [.next(210, 1), .error(250, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testDisposingDisconnectsTheSource() {
        let xs = scheduler.createHotObservable(events)
        let res = scheduler.start(disposed: 250) { xs.multicast({ PublishSubject<Int>() }, selector: { $0 }) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
    }

    func testEveryUseInsideTheSelectorSharesOneSourceSubscription() {
        let xs = scheduler.createHotObservable(events)
        let res = scheduler.start {
            xs.multicast({ PublishSubject<Int>() }, selector: { shared in
                Observable.merge(shared, shared.map { $0 * 10 })
            })
        }
        XCTAssertEqual(res.events, [
            .next(210, 1), .next(210, 10), .next(240, 2), .next(240, 20), .next(270, 3), .next(270, 30), .completed(300),
        ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)], "the source was subscribed more than once")
    }

    func testEachSubscriptionMakesItsOwnSubjectAndConnection() {
        let subjects = DisposeLog()
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let shared = xs.multicast({ () -> ReplaySubject<Int> in
            subjects.record("subject")
            return ReplaySubject.create(bufferSize: 1)
        }, selector: { $0.map { $0 + 1 } })
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(100) { _ = shared.subscribe(first) }
        scheduler.scheduleAt(200) { _ = shared.subscribe(second) }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(110, 2), .completed(120)])
        XCTAssertEqual(second.events, [.next(210, 2), .completed(220)])
        XCTAssertEqual(subjects.count, 2)
        XCTAssertEqual(xs.subscriptions, [Subscription(100, 120), Subscription(200, 220)])
    }

    func testASubjectSelectorThatThrowsFailsWithoutSubscribing() {
        let xs = scheduler.createHotObservable(events)
        let res = scheduler.start {
            xs.multicast({ () throws -> PublishSubject<Int> in throw TestError.boom }, selector: { $0 })
        }
        XCTAssertEqual(res.events, [.error(200, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testASelectorThatThrowsFailsWithoutSubscribing() {
        let xs = scheduler.createHotObservable(events)
        let res = scheduler.start {
            xs.multicast({ PublishSubject<Int>() }, selector: { _ -> Observable<Int> in throw TestError.boom })
        }
        XCTAssertEqual(res.events, [.error(200, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testASynchronousSourceReachesTheSelectorsResult() {
        let shared = Observable.of(1, 2, 3).multicast({ PublishSubject<Int>() }, selector: { shared in
            shared.map { "\($0)" }
        })
        XCTAssertEqual(collect(shared), [.next("1"), .next("2"), .next("3"), .completed])
        XCTAssertEqual(collect(Observable<Int>.error(TestError.boom).multicast({ PublishSubject<Int>() }, selector: { $0 })), [.error(TestError.boom)])
    }

    func testAResultThatEndsFirstDisconnectsTheSource() {
        let xs = scheduler.createHotObservable(events)
        let res = scheduler.start { xs.multicast({ PublishSubject<Int>() }, selector: { $0.take(2) }) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(240, 2), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 240)])
    }

    func testConformance() {
        assertOperatorBasics { $0.multicast({ PublishSubject<Int>() }, selector: { $0 }) }
        assertOperatorBasics { $0.multicast({ ReplaySubject<Int>.createUnbound() }, selector: { Observable.merge($0, $0) }) }
    }
}
