import Dispatch
import RxCore
import RxTesting
import XCTest

/// `withLatestFrom` pairs each element of the source with the latest of the second sequence, in
/// virtual time.
final class WithLatestFromTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testPairsEachSourceElementWithTheLatestOfSecondAndDropsThoseBeforeSecondEmitted() {
        let xs = scheduler.createHotObservable([
            .next(90, 1), .next(180, 2), .next(250, 3), .next(260, 4), .next(310, 5), .next(340, 6),
            .next(410, 7), .next(420, 8), .next(470, 9), .next(550, 10), .completed(590),
        ])
        let ys = scheduler.createHotObservable([
            .next(255, "bar"), .next(330, "foo"), .next(350, "qux"), .completed(400),
        ])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        XCTAssertEqual(res.events, [
            .next(260, "4bar"), .next(310, "5bar"), .next(340, "6foo"), .next(410, "7qux"),
            .next(420, "8qux"), .next(470, "9qux"), .next(550, "10qux"), .completed(590),
        ])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 590)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 400)], "second's completion releases only second")
    }

    func testWithoutSelectorEmitsTheLatestOfSecond() {
        let xs = scheduler.createHotObservable([.next(250, 3), .next(260, 4), .next(310, 5), .completed(320)])
        let ys = scheduler.createHotObservable([.next(255, "bar"), .next(300, "foo")])
        let res = scheduler.start { xs.withLatestFrom(ys) }
        XCTAssertEqual(res.events, [.next(260, "bar"), .next(310, "foo"), .completed(320)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 320)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 320)])
    }

    func testSecondCompletingWithoutAnElementDropsEverythingUntilTheSourceCompletes() {
        let xs = scheduler.createHotObservable([.next(250, 3), .next(260, 4), .completed(300)])
        let ys = scheduler.createHotObservable([.completed(220, String.self)])
        let res = scheduler.start { xs.withLatestFrom(ys) }
        XCTAssertEqual(res.events, [.completed(300)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 220)])
    }

    func testAnErrorFromTheSourceFailsTheSequenceAndDisposesBoth() {
        let xs = scheduler.createHotObservable([.next(250, 3), .next(260, 4), .error(290, TestError.boom)])
        let ys = scheduler.createHotObservable([.next(255, "bar"), .next(330, "foo")])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        XCTAssertEqual(res.events, [.next(260, "4bar"), .error(290, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 290)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 290)])
    }

    func testAnErrorFromSecondFailsTheSequenceAndDisposesBoth() {
        let xs = scheduler.createHotObservable([.next(250, 3), .next(260, 4), .next(310, 5), .completed(590)])
        let ys = scheduler.createHotObservable([.next(255, "bar"), .error(290, TestError.other)])
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" } }
        XCTAssertEqual(res.events, [.next(260, "4bar"), .error(290, TestError.other)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 290)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 290)])
    }

    func testAnErrorThrownByTheSelectorFailsTheSequenceAndDisposesBoth() {
        let xs = scheduler.createHotObservable([.next(250, 3), .next(260, 4), .next(310, 5), .completed(590)])
        let ys = scheduler.createHotObservable([.next(255, "bar"), .next(330, "foo")])
        let res = scheduler.start {
            xs.withLatestFrom(ys) { (x: Int, y: String) -> String in
                if x == 5 { throw TestError.boom }
                return "\(x)\(y)"
            }
        }
        XCTAssertEqual(res.events, [.next(260, "4bar"), .error(310, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 310)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 310)])
    }

    func testDisposingDisposesBothSequences() {
        let xs = scheduler.createHotObservable([.next(250, 3), .next(260, 4), .next(1_100, 5)])
        let ys = scheduler.createHotObservable([.next(255, "bar")])
        let res = scheduler.start(disposed: 400) { xs.withLatestFrom(ys) }
        XCTAssertEqual(res.events, [.next(260, "bar")])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 400)])
    }

    func testSecondIsSubscribedFirstSoItsImmediateValueIsSeen() {
        let xs = BehaviorSubject(value: 3)
        let ys = BehaviorSubject(value: 5)
        let res = scheduler.start { xs.withLatestFrom(ys) { "\($0)\($1)" }.take(1) }
        XCTAssertEqual(res.events, [.next(200, "35"), .completed(200)])
    }

    func testAnImmediateErrorFromSecondFailsWithoutSubscribingTheSource() {
        let xs = scheduler.createColdObservable([.next(10, 1)])
        let res = scheduler.start { xs.withLatestFrom(Observable<Int>.error(TestError.other)) }
        XCTAssertEqual(res.events, [.error(200, TestError.other)])
        XCTAssertEqual(xs.subscriptions, [])
    }

    func testAnElementSentFromInsideADeliveryIsDeliveredRightAfterIt() {
        let source = DrivenSource<Int>()
        let second = DrivenSource<String>()
        nonisolated(unsafe) var log: [String] = []
        let subscription = source.observable.withLatestFrom(second.observable) { "\($0)\($1)" }.subscribe(
            onNext: { value in
                log.append("start \(value)")
                if value == "1a" { source.onNext(2) }
                log.append("end \(value)")
            },
            onError: { _ in log.append("error") }
        )
        second.onNext("a")
        source.onNext(1)
        second.onError(TestError.boom)
        source.onNext(3)
        XCTAssertEqual(log, ["start 1a", "end 1a", "start 2a", "end 2a", "error"])
        subscription.dispose()
    }

    func testConformance() {
        assertOperatorBasics { $0.withLatestFrom(Observable.just("latest")) }
    }

    func testSecondFailingFromAnotherThreadWhileTheSourceEmitsKeepsTheGrammar() {
        for _ in 0..<300 {
            let source = DrivenSource<Int>()
            let second = DrivenSource<Int>()
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(source.observable.withLatestFrom(second.observable) { $0 + $1 })
            second.onNext(0)
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                switch index {
                case 0:
                    for value in 0..<20 { source.onNext(value) }
                    source.onCompleted()
                case 1:
                    second.onNext(100)
                    second.onError(TestError.other)
                default:
                    subscription.dispose()
                }
            }
            subscription.dispose()
            XCTAssertLessThanOrEqual(recorder.terminalCount, 1)
            XCTAssertEqual(recorder.eventsAfterTerminal, 0)
            XCTAssertEqual(recorder.overlapCount, 0)
            XCTAssertEqual(recorder.disposed, 1)
            XCTAssertEqual(source.observerCount, 0)
            XCTAssertEqual(second.observerCount, 0)
        }
    }
}
