import Foundation
import RxCore
import RxTesting
import XCTest

final class TakeUntilTests: RxTestCase {
    func testForwardsTheSourceUntilOtherEmitsThenCompletesAndDisposesBoth() {
        let source = DrivenSource<Int>()
        let other = DrivenSource<String>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.take(until: other.observable))
        source.onNext(1)
        source.onNext(2)
        other.onNext("stop")
        source.onNext(3)
        XCTAssertEqual(recorder.events, [.next(1), .next(2), .completed])
        XCTAssertEqual(source.observerCount, 0)
        XCTAssertEqual(other.observerCount, 0)
        subscription.dispose()
    }

    func testAnErrorFromOtherFailsTheSequence() {
        let source = DrivenSource<Int>()
        let other = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.take(until: other.observable))
        source.onNext(1)
        other.onError(TestError.other)
        XCTAssertEqual(recorder.events, [.next(1), .error(TestError.other)])
        XCTAssertEqual(source.observerCount, 0)
        subscription.dispose()
    }

    func testOtherCompletingWithoutAnElementLetsTheSourceGoOn() {
        let source = DrivenSource<Int>()
        let other = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.take(until: other.observable))
        other.onCompleted()
        XCTAssertEqual(other.observerCount, 0, "the finished trigger is released")
        source.onNext(1)
        source.onCompleted()
        XCTAssertEqual(recorder.events, [.next(1), .completed])
        subscription.dispose()
    }

    func testOtherFiringOnSubscribeCompletesWithoutSubscribingTheSource() {
        let source = DrivenSource<Int>()
        XCTAssertEqual(collect(source.observable.take(until: Observable.just(()))), [.completed])
        XCTAssertEqual(source.subscriptions, 0)
    }

    func testTheSourceEndingDisposesOther() {
        let other = DrivenSource<Int>()
        XCTAssertEqual(collect(Observable.of(1, 2).take(until: other.observable)), [.next(1), .next(2), .completed])
        XCTAssertEqual(other.subscriptions, 1)
        XCTAssertEqual(other.observerCount, 0)
    }

    func testDisposingMidStreamDisposesOther() {
        let other = DrivenSource<Int>()
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.take(until: other.observable))
        source.onNext(1)
        subscription.dispose()
        other.onNext(1)
        XCTAssertEqual(recorder.events, [.next(1)])
        XCTAssertEqual(other.observerCount, 0)
        XCTAssertEqual(source.observerCount, 0)
    }

    func testOtherFiringFromInsideADeliveryCompletesRightAfterIt() {
        let source = DrivenSource<Int>()
        let other = DrivenSource<Void>()
        nonisolated(unsafe) var events: [Observed<Int>] = []
        let subscription = source.observable.take(until: other.observable).subscribe(
            onNext: { value in
                events.append(.next(value))
                if value == 2 { other.onNext(()) }
                events.append(.next(-value))
            },
            onCompleted: { events.append(.completed) }
        )
        source.onNext(1)
        source.onNext(2)
        source.onNext(3)
        XCTAssertEqual(events, [.next(1), .next(-1), .next(2), .next(-2), .completed])
        subscription.dispose()
    }

    func testAnElementSentFromInsideADeliveryIsDeliveredRightAfterIt() {
        let source = DrivenSource<Int>()
        let other = DrivenSource<Void>()
        nonisolated(unsafe) var events: [Observed<Int>] = []
        let subscription = source.observable.take(until: other.observable).subscribe(
            onNext: { value in
                events.append(.next(value))
                if value == 1 { source.onNext(2) }
                events.append(.next(-value))
            },
            onCompleted: { events.append(.completed) }
        )
        source.onNext(1)
        other.onNext(())
        source.onNext(3)
        XCTAssertEqual(events, [.next(1), .next(-1), .next(2), .next(-2), .completed])
        subscription.dispose()
    }

    func testConformance() {
        let never = Observable<Int>.never()
        assertOperatorBasics { $0.take(until: never) }
    }

    func testOtherFiringFromAnotherThreadWhileTheSourceEmitsKeepsTheGrammar() {
        for _ in 0..<300 {
            let source = DrivenSource<Int>()
            let other = DrivenSource<Int>()
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(source.observable.take(until: other.observable))
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for value in 0..<20 { source.onNext(value) }
                    source.onCompleted()
                } else {
                    other.onNext(0)
                }
            }
            subscription.dispose()
            recorder.assertOneTerminal()
            XCTAssertEqual(recorder.events.last, .completed)
            XCTAssertEqual(recorder.elements, Array(0..<recorder.elements.count), "a prefix of the source")
            XCTAssertEqual(source.observerCount, 0)
            XCTAssertEqual(other.observerCount, 0)
        }
    }

    func testOtherFailingFromAnotherThreadWhileTheSourceEmitsKeepsTheGrammar() {
        for _ in 0..<300 {
            let source = DrivenSource<Int>()
            let other = DrivenSource<Int>()
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(source.observable.take(until: other.observable))
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                switch index {
                case 0:
                    for value in 0..<20 { source.onNext(value) }
                    source.onError(TestError.boom)
                case 1:
                    other.onError(TestError.other)
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
            XCTAssertEqual(other.observerCount, 0)
        }
    }
}
