import RxCore
import RxTesting
import XCTest

/// `Observable.catch(sequence:)` moves to the next sequence each time the current one fails.
final class CatchSequenceTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testMovesToTheNextSequenceOnEachErrorUntilOneCompletes() {
        let xs1 = scheduler.createColdObservable([.next(10, 1), .next(20, 2), .next(30, 3), .error(40, TestError.boom)])
        let xs2 = scheduler.createColdObservable([.next(10, 4), .next(20, 5), .error(30, TestError.boom)])
        let xs3 = scheduler.createColdObservable([
            .next(10, 6), .next(20, 7), .next(30, 8), .next(40, 9), .completed(50),
        ])
        let res = scheduler.start {
            Observable.catch(sequence: [xs1.asObservable(), xs2.asObservable(), xs3.asObservable()])
        }
        XCTAssertEqual(res.events, [
            .next(210, 1), .next(220, 2), .next(230, 3), .next(250, 4), .next(260, 5),
            .next(280, 6), .next(290, 7), .next(300, 8), .next(310, 9), .completed(320),
        ])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 240)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(240, 270)])
        XCTAssertEqual(xs3.subscriptions, [Subscription(270, 320)])
    }

    func testAnEmptySequenceCompletesAtOnce() {
        let res = scheduler.start { Observable<Int>.catch(sequence: []) }
        XCTAssertEqual(res.events, [.completed(200)])
    }

    func testCompletionOfTheCurrentSequenceCompletesWithoutTryingTheNext() {
        let xs1 = scheduler.createColdObservable([.next(10, 1), .completed(20)])
        let xs2 = scheduler.createColdObservable([.next(10, 2), .completed(20)])
        let res = scheduler.start { Observable.catch(sequence: [xs1.asObservable(), xs2.asObservable()]) }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(220)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(xs2.subscriptions, [])
    }

    func testTheErrorOfTheLastSequenceIsForwarded() {
        let xs1 = scheduler.createColdObservable([.next(10, 1), .error(20, TestError.boom)])
        let xs2 = scheduler.createColdObservable([.next(10, 2), .error(20, TestError.other)])
        let res = scheduler.start { Observable.catch(sequence: [xs1.asObservable(), xs2.asObservable()]) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2), .error(240, TestError.other)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(220, 240)])
    }

    func testDisposingDisposesTheCurrentSequenceAndTriesNoMore() {
        let xs1 = scheduler.createColdObservable([.next(10, 1), .error(20, TestError.boom)])
        let xs2 = scheduler.createColdObservable([.next(10, 2), .error(200, TestError.boom)])
        let xs3 = scheduler.createColdObservable([.next(10, 3)])
        let res = scheduler.start(disposed: 300) {
            Observable.catch(sequence: [xs1.asObservable(), xs2.asObservable(), xs3.asObservable()])
        }
        XCTAssertEqual(res.events, [.next(210, 1), .next(230, 2)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(200, 220)])
        XCTAssertEqual(xs2.subscriptions, [Subscription(220, 300)])
        XCTAssertEqual(xs3.subscriptions, [])
    }

    func testTheSequenceIsIteratedLazilyOnlyAsFarAsErrorsTakeIt() {
        var made = 0
        let sources = (0...).lazy.map { index -> Observable<Int> in
            made += 1
            return index < 2 ? Observable.error(TestError.boom) : Observable.of(index, index + 1)
        }
        let res = scheduler.start { Observable.catch(sequence: sources) }
        XCTAssertEqual(res.events, [.next(200, 2), .next(200, 3), .completed(200)])
        XCTAssertEqual(made, 3)
    }

    func testManySynchronousFailuresRunInConstantStackDepth() {
        let count = 100_000
        let sources = (0...count).lazy.map { index -> Observable<Int> in
            index < count ? Observable.error(TestError.boom) : Observable.just(index)
        }
        let res = scheduler.start { Observable.catch(sequence: sources) }
        XCTAssertEqual(res.events, [.next(200, count), .completed(200)])
    }

    func testEachSubscriptionIteratesTheSequenceAnew() {
        let xs1 = scheduler.createColdObservable([.error(10, TestError.boom, Int.self)])
        let xs2 = scheduler.createColdObservable([.next(5, 2), .completed(10)])
        let catching = Observable.catch(sequence: [xs1.asObservable(), xs2.asObservable()])
        let first = scheduler.createObserver(Int.self)
        let second = scheduler.createObserver(Int.self)
        var subscriptions: [Disposable] = []
        scheduler.scheduleAt(100) { subscriptions.append(catching.subscribe(first)) }
        scheduler.scheduleAt(200) { subscriptions.append(catching.subscribe(second)) }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(115, 2), .completed(120)])
        XCTAssertEqual(second.events, [.next(215, 2), .completed(220)])
        XCTAssertEqual(xs1.subscriptions, [Subscription(100, 110), Subscription(200, 210)])
        subscriptions.forEach { $0.dispose() }
    }

    func testConformance() {
        assertOperatorBasics { Observable.catch(sequence: [$0, Observable.just(-1)]) }
    }
}
