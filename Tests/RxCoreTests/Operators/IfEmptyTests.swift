import RxCore
import RxTesting
import XCTest

/// `ifEmpty(default:)` and `ifEmpty(switchTo:)` replace an empty completion of the source with an
/// element, or with another sequence subscribed only then.
final class IfEmptyTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    // MARK: ifEmpty(default:)

    func testDefaultIsSentWhenTheSourceCompletesEmpty() {
        let xs = scheduler.createHotObservable([.completed(230, Int.self)])
        let res = scheduler.start { xs.ifEmpty(default: 42) }
        XCTAssertEqual(res.events, [.next(230, 42), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testDefaultIsNotSentWhenTheSourceHasElements() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.ifEmpty(default: 42) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
    }

    func testDefaultIsNotSentAfterAnError() {
        let xs = scheduler.createHotObservable([.error(230, TestError.boom, Int.self)])
        let res = scheduler.start { xs.ifEmpty(default: 42) }
        XCTAssertEqual(res.events, [.error(230, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testASilentSourceStaysSubscribedUntilDisposed() {
        let xs = scheduler.createHotObservable([.next(150, 0)])
        let res = scheduler.start { xs.ifEmpty(default: 42) }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1_000)])
    }

    func testDefaultWithASynchronousSource() {
        XCTAssertEqual(collect(Observable<Int>.empty().ifEmpty(default: 7)), [.next(7), .completed])
        XCTAssertEqual(collect(Observable.just(1).ifEmpty(default: 7)), [.next(1), .completed])
        XCTAssertEqual(collect(Observable<Int?>.just(nil).ifEmpty(default: 7)), [.next(nil), .completed])
    }

    // MARK: ifEmpty(switchTo:)

    func testSwitchesToTheOtherSequenceAfterAnEmptyCompletion() {
        let xs = scheduler.createHotObservable([.completed(210, Int.self)])
        let ys = scheduler.createColdObservable([.next(10, 0), .next(20, 1), .completed(30)])
        let res = scheduler.start { xs.ifEmpty(switchTo: ys.asObservable()) }
        XCTAssertEqual(res.events, [.next(220, 0), .next(230, 1), .completed(240)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 240)])
    }

    func testTheOtherSequencesErrorPassesThrough() {
        let xs = scheduler.createHotObservable([.completed(210, Int.self)])
        let ys = scheduler.createColdObservable([.next(10, 0), .error(20, TestError.boom)])
        let res = scheduler.start { xs.ifEmpty(switchTo: ys.asObservable()) }
        XCTAssertEqual(res.events, [.next(220, 0), .error(230, TestError.boom)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 230)])
    }

    func testANonEmptySourceNeverSubscribesTheOther() {
        let xs = scheduler.createHotObservable([.next(205, 1), .completed(210)])
        let ys = scheduler.createColdObservable([.next(10, 0), .completed(50)])
        let res = scheduler.start { xs.ifEmpty(switchTo: ys.asObservable()) }
        XCTAssertEqual(res.events, [.next(205, 1), .completed(210)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testAnErrorOfTheSourceNeverSubscribesTheOther() {
        let xs = scheduler.createHotObservable([.error(210, TestError.boom, Int.self)])
        let ys = scheduler.createColdObservable([.next(10, 0), .completed(50)])
        let res = scheduler.start { xs.ifEmpty(switchTo: ys.asObservable()) }
        XCTAssertEqual(res.events, [.error(210, TestError.boom)])
        XCTAssertEqual(ys.subscriptions, [])
    }

    func testDisposingDuringTheOtherSequenceDisposesIt() {
        let xs = scheduler.createHotObservable([.completed(210, Int.self)])
        let ys = scheduler.createColdObservable([.next(10, 0), .next(500, 1)])
        let res = scheduler.start(disposed: 300) { xs.ifEmpty(switchTo: ys.asObservable()) }
        XCTAssertEqual(res.events, [.next(220, 0)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 300)])
    }

    func testTheSourceTalkingAfterItsEmptyCompletionIsNotTakenForTheOther() {
        let source = DrivenSource<Int>()
        let other = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.ifEmpty(switchTo: other.observable))
        source.onCompleted()
        XCTAssertEqual(source.observerCount, 0, "the source was not disposed before switching")
        XCTAssertEqual(other.subscriptions, 1)
        other.onNext(1)
        other.onCompleted()
        XCTAssertEqual(recorder.events, [.next(1), .completed])
        subscription.dispose()
        XCTAssertEqual(other.observerCount, 0)
    }

    func testSynchronousSources() {
        XCTAssertEqual(collect(Observable<Int>.empty().ifEmpty(switchTo: .of(1, 2))), [.next(1), .next(2), .completed])
        XCTAssertEqual(collect(Observable<Int>.empty().ifEmpty(switchTo: .error(TestError.boom))), [.error(TestError.boom)])
        XCTAssertEqual(collect(Observable.just(3).ifEmpty(switchTo: .of(1, 2))), [.next(3), .completed])
    }

    func testConformance() {
        assertOperatorBasics { $0.ifEmpty(default: 0) }
        assertOperatorBasics { $0.ifEmpty(switchTo: .just(0)) }
        assertOperatorBasics { $0.filter { _ in false }.ifEmpty(switchTo: .of(9, 8)) }
    }
}
