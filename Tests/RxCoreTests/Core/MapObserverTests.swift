import RxCore
import RxTesting
import XCTest

/// `mapObserver` makes an observer of another element type that transforms each element on its way
/// to the observer it was made from; a throwing transform sends the error instead.
final class MapObserverTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testElementsAreTransformed() {
        let target = scheduler.createObserver(Int.self)
        let halving = target.mapObserver { (value: Int) in value / 2 }
        halving.onNext(4)
        halving.on(.next(10))
        XCTAssertEqual(target.events, [.next(0, 2), .next(0, 5)])
    }

    func testCompletionPassesThrough() {
        let target = scheduler.createObserver(Int.self)
        target.mapObserver { (value: String) in value.count }.onCompleted()
        XCTAssertEqual(target.events, [.completed(0)])
    }

    func testAnErrorPassesThrough() {
        let target = scheduler.createObserver(Int.self)
        target.mapObserver { (value: Int) in value }.onError(TestError.boom)
        XCTAssertEqual(target.events, [.error(0, TestError.boom)])
    }

    func testAThrowingTransformSendsTheErrorInPlaceOfTheElement() {
        let target = scheduler.createObserver(Int.self)
        let failing = target.mapObserver { (value: Int) throws -> Int in
            if value == 2 { throw TestError.boom }
            return value * 10
        }
        failing.onNext(1)
        failing.onNext(2)
        XCTAssertEqual(target.events, [.next(0, 10), .error(0, TestError.boom)])
    }

    func testNothingReachesTheTargetAfterATerminalEvent() {
        let target = scheduler.createObserver(Int.self)
        let failing = target.mapObserver { (_: Int) throws -> Int in throw TestError.boom }
        failing.onNext(1)
        failing.onNext(2)
        failing.onCompleted()
        XCTAssertEqual(target.events, [.error(0, TestError.boom)], "events went on after the thrown error")

        let other = scheduler.createObserver(Int.self)
        let mapped = other.mapObserver { (value: Int) in value }
        mapped.onCompleted()
        mapped.onNext(1)
        mapped.onError(TestError.other)
        XCTAssertEqual(other.events, [.completed(0)])
    }

    func testOnAnAnyObserverItFeedsTheObserverBehindIt() {
        let subject = PublishSubject<String>()
        let recorder = Recorder<String>()
        let subscription = recorder.subscribe(subject)
        let counting = subject.asObserver().mapObserver { (value: Int) in String(repeating: "*", count: value) }
        counting.onNext(3)
        counting.onNext(1)
        counting.onCompleted()
        XCTAssertEqual(recorder.events, [.next("***"), .next("*"), .completed])
        subscription.dispose()
    }

    func testAMappedObserverCanBeSubscribedToASequence() {
        let target = scheduler.createObserver(String.self)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        scheduler.scheduleAt(200) { _ = xs.subscribe(target.mapObserver { (value: Int) in "#\(value)" }) }
        scheduler.start()
        XCTAssertEqual(target.events, [.next(210, "#1"), .next(220, "#2"), .completed(230)])
    }
}
