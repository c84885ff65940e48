import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class AmbTests: RxTestCase {
    func testTheFirstSourceToEmitWinsAndTheOthersAreDisposed() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.amb(sources.map(\.observable)))
        XCTAssertEqual(sources.map(\.subscriptions), [1, 1, 1])
        sources[1].onNext(10)
        XCTAssertEqual(sources.map(\.disposals), [1, 0, 1])
        sources[0].onNext(1)
        sources[1].onNext(11)
        sources[1].onCompleted()
        XCTAssertEqual(recorder.elements, [10, 11])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testATerminalEventAlsoWinsTheRace() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(left.observable.amb(right.observable))
        right.onError(TestError.boom)
        left.onNext(1)
        XCTAssertEqual(recorder.elements, [])
        XCTAssertEqual(recorder.error as? TestError, .boom)
        XCTAssertEqual(left.disposals, 1)
        recorder.assertGrammar()
        subscription.dispose()

        nonisolated(unsafe) var completed = false
        _ = Observable<Int>.empty().amb(Observable.just(1)).subscribe(onCompleted: { completed = true })
        XCTAssertTrue(completed)
    }

    func testASynchronousWinnerMeansTheRestAreNeverSubscribed() {
        let late = ThreadSafeSource<Int>()
        nonisolated(unsafe) var received: [Int] = []
        _ = Observable.amb([Observable.just(1), late.observable]).subscribe(onNext: { received.append($0) })
        XCTAssertEqual(received, [1])
        XCTAssertEqual(late.subscriptions, 0)
    }

    func testDisposeDisposesEverySourceAndNoSourcesNeverEmits() {
        let sources = (0..<2).map { _ in ThreadSafeSource<Int>() }
        nonisolated(unsafe) var events = 0
        let subscription = Observable.amb(sources.map(\.observable)).subscribe(onNext: { _ in events += 1 })
        subscription.dispose()
        sources[0].onNext(1)
        XCTAssertEqual(events, 0)
        XCTAssertEqual(sources.map(\.disposals), [1, 1])

        let never = Observable<Int>.amb([Observable<Int>]()).subscribe { _ in events += 1 }
        XCTAssertEqual(events, 0)
        never.dispose()
    }

    func testConcurrentFirstEventsHaveExactlyOneWinner() {
        for _ in 0..<200 {
            let sources = (0..<4).map { _ in ThreadSafeSource<Int>() }
            let recorder = GrammarRecorder<Int>()
            let subscription = recorder.subscribe(Observable.amb(sources.map(\.observable)))
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for value in 0..<20 {
                    sources[worker].onNext(worker * 100 + value)
                }
                sources[worker].onCompleted()
            }
            let elements = recorder.elements
            let winner = elements.first.map { $0 / 100 } ?? -1
            XCTAssertEqual(elements, Array(winner * 100..<winner * 100 + 20))
            XCTAssertTrue(recorder.isCompleted)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }
}
