import RxCore
import RxTesting
import XCTest

final class MaybeZipTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testZipSucceedsWhenBothHaveSucceeded() {
        let xs = scheduler.createColdObservable([.next(10, 1), .completed(10)])
        let ys = scheduler.createColdObservable([.next(30, 2), .completed(30)])
        let res = scheduler.start { Maybe.zip(xs.asMaybe(), ys.asMaybe()) { $0 + $1 }.asObservable() }
        XCTAssertEqual(res.events, [.next(230, 3), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 230)])
    }

    func testZipOfAnEmptyMaybeCompletesEmptyOnceTheOtherCompletes() {
        let xs = scheduler.createColdObservable([.completed(10, Int.self)])
        let ys = scheduler.createColdObservable([.next(30, 2), .completed(30)])
        let res = scheduler.start { Maybe.zip(xs.asMaybe(), ys.asMaybe()).asObservable().map { $0 + $1 } }
        // As in RxSwift: a fixed-arity zip completes once every source completed.
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 230)])
    }

    func testZipFailsAsSoonAsOneFails() {
        let xs = scheduler.createColdObservable([.error(10, TestError.boom, Int.self)])
        let ys = scheduler.createColdObservable([.next(30, 2), .completed(30)])
        let zs = scheduler.createColdObservable([.next(5, 3), .completed(5)])
        let res = scheduler.start {
            Maybe.zip(xs.asMaybe(), ys.asMaybe(), zs.asMaybe()).asObservable().map { $0 + $1 + $2 }
        }
        XCTAssertEqual(res.events, [.error(210, TestError.boom)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(collect(Maybe.zip(Maybe.just(1), Maybe.just(2)) { _, _ -> Int in throw TestError.other }), [.error(TestError.other)])
    }

    func testZipOfACollectionKeepsTheOrderOfTheCollection() {
        XCTAssertEqual(collect(Maybe.zip([Maybe.just(1), .just(2), .just(3)]).map { $0.map(String.init).joined() }), [.next("123"), .completed])
        XCTAssertEqual(collect(Maybe.zip([Maybe.just(1), .empty()]).map(\.count)), [.completed])
        XCTAssertEqual(collect(Maybe.zip([Maybe<Int>]()).map(\.count)), [.next(0), .completed])
        XCTAssertEqual(collect(Maybe.zip([Maybe.just(2), .just(5)]) { $0.reduce(0, +) }), [.next(7), .completed])
    }

    func testZipDisposedDisposesEverySource() {
        let xs = scheduler.createColdObservable([.next(100, 1), .completed(100)])
        let ys = scheduler.createColdObservable([.next(100, 2), .completed(100)])
        let res = scheduler.start(disposed: 250) { Maybe.zip(xs.asMaybe(), ys.asMaybe()) { $0 + $1 }.asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }
}
