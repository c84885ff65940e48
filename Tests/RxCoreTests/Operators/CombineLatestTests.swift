import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class CombineLatestTests: RxTestCase {
    func testEmitsTheLatestOfEachOnceAllHaveEmittedThenOnEveryElement() {
        let numbers = ThreadSafeSource<Int>()
        let letters = ThreadSafeSource<String>()
        let recorder = GrammarRecorder<String>()
        let subscription = recorder.subscribe(
            Observable.combineLatest(numbers.observable, letters.observable) { "\($0)\($1)" }
        )
        numbers.onNext(1)
        numbers.onNext(2)
        XCTAssertEqual(recorder.elements, [])
        letters.onNext("a")
        letters.onNext("b")
        numbers.onNext(3)
        XCTAssertEqual(recorder.elements, ["2a", "2b", "3b"])
        subscription.dispose()
        XCTAssertEqual(numbers.disposals, 1)
        XCTAssertEqual(letters.disposals, 1)
    }

    func testCompletesWhenEverySourceHasCompletedAndKeepsCombiningUntilThen() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<(Int, Int)>()
        let subscription = recorder.subscribe(Observable.combineLatest(left.observable, right.observable))
        left.onNext(1)
        right.onNext(10)
        left.onCompleted()
        right.onNext(20)
        XCTAssertFalse(recorder.isCompleted)
        right.onCompleted()
        XCTAssertEqual(recorder.elements.map { $0.0 + $0.1 }, [11, 21])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testASourceCompletingWithoutEmittingLeavesTheOthersSubscribedUntilTheyCanNeverCombine() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<(Int, Int)>()
        let subscription = recorder.subscribe(Observable.combineLatest(left.observable, right.observable))
        left.onNext(1)
        right.onCompleted()
        XCTAssertFalse(recorder.isCompleted, "RxSwift completes only once every source completed")
        XCTAssertEqual(left.disposals, 0)
        left.onNext(2)
        XCTAssertTrue(recorder.isCompleted, "an element no combination can include ends the sequence")
        XCTAssertEqual(left.disposals, 1)
        XCTAssertTrue(recorder.elements.isEmpty)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testCompletesWhenEverySourceCompletedEvenIfOneNeverEmitted() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<(Int, Int)>()
        let subscription = recorder.subscribe(Observable.combineLatest(left.observable, right.observable))
        right.onCompleted()
        XCTAssertFalse(recorder.isCompleted)
        left.onCompleted()
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testAnErrorTerminatesAndDisposesTheOtherSources() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(
            Observable.combineLatest(sources[0].observable, sources[1].observable, sources[2].observable) {
                $0 + $1 + $2
            }
        )
        sources.forEach { $0.onNext(1) }
        sources[2].onError(TestError.boom)
        sources[0].onNext(5)
        XCTAssertEqual(recorder.elements, [3])
        XCTAssertEqual(recorder.error as? TestError, .boom)
        XCTAssertEqual(sources.map(\.disposals), [1, 1, 1])
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testAThrowingResultSelectorTerminatesWithItsError() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.combineLatest(left.observable, right.observable) { a, b in
            if a + b > 2 { throw TestError.other }
            return a + b
        })
        left.onNext(1)
        right.onNext(1)
        right.onNext(2)
        XCTAssertEqual(recorder.elements, [2])
        XCTAssertEqual(recorder.error as? TestError, .other)
        XCTAssertEqual(left.disposals, 1)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testTupleFormsOfThreeAndFourSourcesAndDispose() {
        nonisolated(unsafe) var triples: [String] = []
        _ = Observable.combineLatest(Observable.just(1), Observable.just("a"), Observable.just(true))
            .subscribe(onNext: { triples.append("\($0.0)\($0.1)\($0.2)") })
        XCTAssertEqual(triples, ["1atrue"])

        let sources = (0..<4).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<(Int, Int, Int, Int)>()
        let subscription = recorder.subscribe(Observable.combineLatest(
            sources[0].observable, sources[1].observable, sources[2].observable, sources[3].observable
        ))
        for (index, source) in sources.enumerated() {
            source.onNext(index)
        }
        sources[0].onNext(9)
        XCTAssertEqual(recorder.elements.map { [$0.0, $0.1, $0.2, $0.3] }, [[0, 1, 2, 3], [9, 1, 2, 3]])
        subscription.dispose()
        sources[1].onNext(7)
        XCTAssertEqual(recorder.elements.count, 2)
        XCTAssertEqual(sources.map(\.disposals), [1, 1, 1, 1])
    }

    func testResultSelectorFormsOfThreeAndFourSources() {
        nonisolated(unsafe) var sums: [Int] = []
        _ = Observable.combineLatest(Observable.just(1), Observable.just(2), Observable.just(3)) { $0 + $1 + $2 }
            .subscribe(onNext: { sums.append($0) })
        _ = Observable.combineLatest(Observable.just(1), Observable.just(2), Observable.just(3), Observable.just(4)) {
            $0 + $1 + $2 + $3
        }
        .subscribe(onNext: { sums.append($0) })
        XCTAssertEqual(sums, [6, 10])
    }

    func testCollectionFormCombinesIntoArraysAndAnEmptyCollectionEmitsOneEmptyArray() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<[Int]>()
        let subscription = recorder.subscribe(Observable.combineLatest(sources.map(\.observable)))
        sources[0].onNext(1)
        sources[1].onNext(2)
        sources[2].onNext(3)
        sources[1].onNext(20)
        sources.forEach { $0.onCompleted() }
        XCTAssertEqual(recorder.elements, [[1, 2, 3], [1, 20, 3]])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()

        nonisolated(unsafe) var summed: [Int] = []
        _ = Observable.combineLatest([Observable.just(1), Observable.just(2)]) { $0.reduce(0, +) }
            .subscribe(onNext: { summed.append($0) })
        XCTAssertEqual(summed, [3])

        nonisolated(unsafe) var events: [String] = []
        _ = Observable<Int>.combineLatest([Observable<Int>]())
            .subscribe(onNext: { events.append("\($0)") }, onCompleted: { events.append("completed") })
        XCTAssertEqual(events, ["[]", "completed"], "RxSwift: the combination of no sources is []")
    }

    func testCollectionFormCompletesWhenAnElementCanNeverCombineAndFailsOnAnError() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<[Int]>()
        let subscription = recorder.subscribe(Observable.combineLatest(sources.map(\.observable)))
        sources[0].onNext(1)
        sources[1].onCompleted()
        sources[2].onCompleted()
        XCTAssertFalse(recorder.isCompleted)
        XCTAssertTrue(sources[0].isSubscribed)
        sources[0].onNext(2)
        XCTAssertTrue(recorder.isCompleted, "no combination can include the element: every other source completed")
        XCTAssertTrue(sources.allSatisfy { !$0.isSubscribed })
        subscription.dispose()

        let failing = (0..<2).map { _ in ThreadSafeSource<Int>() }
        let failures = GrammarRecorder<[Int]>()
        let second = failures.subscribe(Observable.combineLatest(failing.map(\.observable)))
        failing[1].onError(TestError.boom)
        XCTAssertEqual(failures.error as? TestError, .boom)
        failures.assertGrammar()
        second.dispose()
    }

    func testAReactionThatFeedsASourceIsDeliveredAfterTheCurrentCombination() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let combined = Observable.combineLatest(left.observable, right.observable) { $0 * 10 + $1 }
        let subscription = recorder.subscribe(combined) { value in
            if value % 10 < 3 {
                right.onNext(value % 10 + 1)
            }
        }
        left.onNext(1)
        right.onNext(0)
        XCTAssertEqual(recorder.elements, [10, 11, 12, 13])
        recorder.assertGrammar(terminalCount: 0)
        subscription.dispose()
    }

    func testConcurrentSourcesAreSerializedAndEachCombinationIsMonotonic() {
        let count = 2_000
        for _ in 0..<40 {
            let left = ThreadSafeSource<Int>()
            let right = ThreadSafeSource<Int>()
            let recorder = GrammarRecorder<(Int, Int)>()
            let subscription = recorder.subscribe(Observable.combineLatest(left.observable, right.observable))
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                let source = worker == 0 ? left : right
                for value in 0..<count {
                    source.onNext(value)
                }
                source.onCompleted()
            }
            let pairs = recorder.elements
            // Every element after the first of each side yields exactly one combination.
            XCTAssertGreaterThanOrEqual(pairs.count, count)
            XCTAssertLessThanOrEqual(pairs.count, 2 * count - 1)
            XCTAssertTrue(zip(pairs, pairs.dropFirst()).allSatisfy { $0.0 <= $1.0 && $0.1 <= $1.1 })
            XCTAssertEqual(pairs.last.map { [$0.0, $0.1] }, [count - 1, count - 1])
            XCTAssertTrue(recorder.isCompleted)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }

    func testConcurrentCollectionSourcesWithAnErrorEndExactlyOnce() {
        for iteration in 0..<40 {
            let sources = (0..<4).map { _ in ThreadSafeSource<Int>() }
            let recorder = GrammarRecorder<[Int]>()
            let subscription = recorder.subscribe(Observable.combineLatest(sources.map(\.observable)))
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for value in 0..<400 {
                    sources[worker].onNext(value)
                    if worker == iteration % 4 && value == 200 {
                        sources[worker].onError(TestError.boom)
                    }
                }
                sources[worker].onCompleted()
            }
            XCTAssertEqual(recorder.error as? TestError, .boom)
            recorder.assertGrammar()
            XCTAssertTrue(sources.allSatisfy { !$0.isSubscribed })
            subscription.dispose()
        }
    }
}
