import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class ZipTests: RxTestCase {
    func testPairsTheNthElementOfEachSourceInOrder() {
        let numbers = ThreadSafeSource<Int>()
        let letters = ThreadSafeSource<String>()
        let recorder = GrammarRecorder<String>()
        let subscription = recorder.subscribe(Observable.zip(numbers.observable, letters.observable) { "\($0)\($1)" })

        numbers.onNext(1)
        numbers.onNext(2)
        numbers.onNext(3)
        XCTAssertEqual(recorder.elements, [])
        letters.onNext("a")
        letters.onNext("b")
        XCTAssertEqual(recorder.elements, ["1a", "2b"])
        letters.onNext("c")
        letters.onNext("d")
        numbers.onNext(4)
        XCTAssertEqual(recorder.elements, ["1a", "2b", "3c", "4d"])
        XCTAssertFalse(recorder.isCompleted)
        subscription.dispose()
        XCTAssertEqual(numbers.disposals, 1)
        XCTAssertEqual(letters.disposals, 1)
    }

    func testTupleFormOfTwoThreeAndFourSources() {
        let pairs = GrammarRecorder<(Int, String)>()
        let pairSubscription = pairs.subscribe(Observable.zip(Observable.just(1), Observable.just("a")))
        XCTAssertEqual(pairs.elements.map { "\($0.0)\($0.1)" }, ["1a"])
        XCTAssertTrue(pairs.isCompleted)
        pairSubscription.dispose()

        nonisolated(unsafe) var triples: [String] = []
        _ = Observable.zip(Observable.just(1), Observable.just("b"), Observable.just(true))
            .subscribe(onNext: { triples.append("\($0.0)\($0.1)\($0.2)") })
        XCTAssertEqual(triples, ["1btrue"])

        nonisolated(unsafe) var quadruples: [String] = []
        nonisolated(unsafe) var completed = false
        _ = Observable.zip(Observable.just(1), Observable.just("c"), Observable.just(2.5), Observable.just(UInt8(7)))
            .subscribe(onNext: { quadruples.append("\($0.0)\($0.1)\($0.2)\($0.3)") }, onCompleted: { completed = true })
        XCTAssertEqual(quadruples, ["1c2.57"])
        XCTAssertTrue(completed)
    }

    func testResultSelectorFormsOfThreeAndFourSourcesPairInOrder() {
        let forThree = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let forFour = (0..<4).map { _ in ThreadSafeSource<Int>() }
        let three = GrammarRecorder<Int>()
        let four = GrammarRecorder<Int>()
        let threeSubscription = three.subscribe(
            Observable.zip(forThree[0].observable, forThree[1].observable, forThree[2].observable) {
                $0 * 100 + $1 * 10 + $2
            }
        )
        let fourSubscription = four.subscribe(
            Observable.zip(forFour[0].observable, forFour[1].observable, forFour[2].observable, forFour[3].observable) {
                $0 * 1000 + $1 * 100 + $2 * 10 + $3
            }
        )
        for round in 1...3 {
            for sources in [forThree, forFour] {
                for (index, source) in sources.enumerated().reversed() {
                    source.onNext(round + index)
                }
            }
        }
        XCTAssertEqual(three.elements, [123, 234, 345])
        XCTAssertEqual(four.elements, [1234, 2345, 3456])
        forThree[2].onCompleted()
        forFour[3].onCompleted()
        XCTAssertFalse(three.isCompleted, "RxSwift's zip waits while the other sources are live")
        forThree.forEach { $0.onCompleted() }
        forFour.forEach { $0.onCompleted() }
        XCTAssertTrue(three.isCompleted)
        XCTAssertTrue(four.isCompleted)
        three.assertGrammar()
        four.assertGrammar()
        threeSubscription.dispose()
        fourSubscription.dispose()
        for source in forThree + forFour {
            XCTAssertFalse(source.isSubscribed)
            XCTAssertEqual(source.disposals, 1)
        }
    }

    func testAFixedArityZipCompletesOnlyOnceEverySourceCompleted() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<(Int, Int)>()
        let subscription = recorder.subscribe(Observable.zip(left.observable, right.observable))

        left.onNext(1)
        right.onNext(10)
        right.onNext(20)
        left.onCompleted()
        XCTAssertEqual(recorder.elements.map(\.1), [10])
        XCTAssertFalse(recorder.isCompleted, "RxSwift completes once every source completed")
        right.onNext(30)
        XCTAssertFalse(recorder.isCompleted, "RxSwift's fixed-arity zip waits even for an element that can never pair")
        XCTAssertEqual(right.disposals, 0)
        right.onCompleted()
        XCTAssertTrue(recorder.isCompleted)
        XCTAssertEqual(recorder.elements.map(\.1), [10])
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testACollectionZipCompletesAsSoonAsAnElementCanNeverPair() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<[Int]>()
        let subscription = recorder.subscribe(Observable.zip([left.observable, right.observable]))

        left.onNext(1)
        right.onNext(10)
        left.onCompleted()
        XCTAssertFalse(recorder.isCompleted)
        right.onNext(20)
        XCTAssertTrue(recorder.isCompleted, "every other source completed: 20 can never be paired (RxSwift's collection zip)")
        XCTAssertEqual(right.disposals, 1, "the other source is disposed on completion")
        XCTAssertEqual(recorder.elements, [[1, 10]])
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testAfterTheLastBufferedPairOfACompletedSourceZipWaitsForTheOthersToComplete() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<(Int, Int)>()
        let subscription = recorder.subscribe(Observable.zip(left.observable, right.observable))

        left.onNext(1)
        left.onNext(2)
        left.onCompleted()
        XCTAssertFalse(recorder.isCompleted, "two buffered elements can still be paired")
        right.onNext(10)
        right.onNext(20)
        XCTAssertEqual(recorder.elements.map { $0.0 * 100 + $0.1 }, [110, 220])
        XCTAssertFalse(recorder.isCompleted)
        XCTAssertEqual(right.disposals, 0)
        right.onCompleted()
        XCTAssertTrue(recorder.isCompleted)
        XCTAssertEqual(right.disposals, 1)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testAnErrorFromEitherSourceTerminatesAndDisposesTheOther() {
        for failing in 0..<2 {
            let sources = [ThreadSafeSource<Int>(), ThreadSafeSource<Int>()]
            let recorder = GrammarRecorder<(Int, Int)>()
            let subscription = recorder.subscribe(Observable.zip(sources[0].observable, sources[1].observable))
            sources[0].onNext(1)
            sources[1].onNext(1)
            sources[1 - failing].onNext(2)
            sources[failing].onError(TestError.boom)
            XCTAssertEqual(recorder.elements.count, 1)
            XCTAssertEqual(recorder.error as? TestError, .boom)
            XCTAssertEqual(sources[1 - failing].disposals, 1)
            XCTAssertFalse(sources[1 - failing].isSubscribed)
            sources[1 - failing].onNext(3)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }

    func testAThrowingResultSelectorTerminatesWithItsErrorAndDisposesTheSources() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.zip(left.observable, right.observable) { a, b -> Int in
            if a == 2 { throw TestError.other }
            return a + b
        })
        left.onNext(1)
        right.onNext(1)
        left.onNext(2)
        right.onNext(2)
        XCTAssertEqual(recorder.elements, [2])
        XCTAssertEqual(recorder.error as? TestError, .other)
        XCTAssertEqual(left.disposals, 1)
        XCTAssertEqual(right.disposals, 1)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testDisposeMidStreamStopsEverythingAndDisposesEachSourceOnce() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        nonisolated(unsafe) var received: [Int] = []
        nonisolated(unsafe) var disposed = 0
        let subscription = Observable.zip(left.observable, right.observable) { $0 + $1 }
            .subscribe(onNext: { received.append($0) }, onDisposed: { disposed += 1 })
        left.onNext(1)
        right.onNext(1)
        left.onNext(5)
        subscription.dispose()
        subscription.dispose()
        right.onNext(5)
        XCTAssertEqual(received, [2])
        XCTAssertEqual(disposed, 1)
        XCTAssertEqual(left.disposals, 1)
        XCTAssertEqual(right.disposals, 1)
    }

    func testASourceThatCompletesEmptyDuringSubscribeStillLetsTheOthersRun() {
        let other = ThreadSafeSource<Int>()
        nonisolated(unsafe) var completed = 0
        let subscription = Observable.zip(Observable<Int>.empty(), other.observable)
            .subscribe(onCompleted: { completed += 1 })
        XCTAssertEqual(completed, 0)
        XCTAssertEqual(other.subscriptions, 1, "as in RxSwift, the other sources are subscribed")
        other.onCompleted()
        XCTAssertEqual(completed, 1)
        subscription.dispose()
    }

    func testSynchronousSourcesAreBufferedUntilMatched() {
        let many = Observable<Int>.create { observer in
            (1...5).forEach(observer.onNext)
            observer.onCompleted()
            return Disposables.create()
        }
        let few = Observable<String>.create { observer in
            ["a", "b", "c"].forEach(observer.onNext)
            observer.onCompleted()
            return Disposables.create()
        }
        let recorder = GrammarRecorder<String>()
        let subscription = recorder.subscribe(Observable.zip(many, few) { "\($0)\($1)" })
        XCTAssertEqual(recorder.elements, ["1a", "2b", "3c"])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testAReactionThatFeedsTheSourcesIsDeliveredAfterTheCurrentElementNotInsideIt() {
        let left = ThreadSafeSource<Int>()
        let right = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.zip(left.observable, right.observable) { $0 + $1 }) { sum in
            if sum < 10 {
                left.onNext(sum)
                right.onNext(sum)
            }
        }
        left.onNext(1)
        right.onNext(1)
        XCTAssertEqual(recorder.elements, [2, 4, 8, 16])
        recorder.assertGrammar(terminalCount: 0)
        subscription.dispose()
    }

    func testCollectionZipsIntoArraysAndAnEmptyCollectionCompletesAtOnce() {
        let sources = (0..<5).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<[Int]>()
        let subscription = recorder.subscribe(Observable.zip(sources.map(\.observable)))
        for round in 0..<3 {
            for (index, source) in sources.enumerated() {
                source.onNext(round * 10 + index)
            }
        }
        XCTAssertEqual(recorder.elements, [[0, 1, 2, 3, 4], [10, 11, 12, 13, 14], [20, 21, 22, 23, 24]])
        sources[0].onNext(30)
        sources[3].onCompleted()
        XCTAssertFalse(recorder.isCompleted, "RxSwift's zip waits while the other sources are live")
        sources[1...].forEach { $0.onCompleted() }
        XCTAssertFalse(recorder.isCompleted, "completions alone end zip only once every source completed")
        sources[0].onNext(40)
        XCTAssertTrue(recorder.isCompleted, "every other source completed: 40 can never be paired")
        XCTAssertTrue(sources.allSatisfy { !$0.isSubscribed })
        recorder.assertGrammar()
        subscription.dispose()

        nonisolated(unsafe) var events: [String] = []
        _ = Observable<Int>.zip([Observable<Int>]())
            .subscribe(onNext: { events.append("\($0)") }, onCompleted: { events.append("completed") })
        XCTAssertEqual(events, ["completed"])
    }

    func testCollectionZipWithSelectorFailsOnASourceErrorAndOnASelectorError() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.zip(sources.map(\.observable)) { values -> Int in
            if values[0] < 0 { throw TestError.other }
            return values.reduce(0, +)
        })
        sources.forEach { $0.onNext(1) }
        sources[1].onError(TestError.boom)
        XCTAssertEqual(recorder.elements, [3])
        XCTAssertEqual(recorder.error as? TestError, .boom)
        XCTAssertTrue(sources.allSatisfy { !$0.isSubscribed })
        subscription.dispose()

        let throwing = GrammarRecorder<Int>()
        let second = throwing.subscribe(Observable.zip([Observable.just(-1), Observable.just(2)]) { values -> Int in
            if values[0] < 0 { throw TestError.other }
            return 0
        })
        XCTAssertEqual(throwing.error as? TestError, .other)
        throwing.assertGrammar()
        second.dispose()
    }

    func testConcurrentSourcesPairEveryNthWithEveryNthAndDeliverSerially() {
        let count = 2_000
        for _ in 0..<40 {
            let left = ThreadSafeSource<Int>()
            let right = ThreadSafeSource<Int>()
            let recorder = GrammarRecorder<(Int, Int)>()
            let subscription = recorder.subscribe(Observable.zip(left.observable, right.observable))
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                let source = worker == 0 ? left : right
                for value in 0..<count {
                    source.onNext(value)
                }
                source.onCompleted()
            }
            let pairs = recorder.elements
            XCTAssertEqual(pairs.count, count)
            XCTAssertTrue(pairs.enumerated().allSatisfy { $0.offset == $0.element.0 && $0.offset == $0.element.1 })
            XCTAssertTrue(recorder.isCompleted)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }

    func testConcurrentCollectionSourcesAndAConcurrentErrorEndExactlyOnce() {
        for iteration in 0..<40 {
            let sources = (0..<4).map { _ in ThreadSafeSource<Int>() }
            let recorder = GrammarRecorder<[Int]>()
            let subscription = recorder.subscribe(Observable.zip(sources.map(\.observable)))
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for value in 0..<500 {
                    sources[worker].onNext(value)
                    if worker == iteration % 4 && value == 250 {
                        sources[worker].onError(TestError.boom)
                    }
                }
                sources[worker].onCompleted()
            }
            let rows = recorder.elements
            XCTAssertLessThanOrEqual(rows.count, 251)
            XCTAssertTrue(rows.enumerated().allSatisfy { row in row.element.allSatisfy { $0 == row.offset } })
            XCTAssertEqual(recorder.error as? TestError, .boom)
            recorder.assertGrammar()
            XCTAssertTrue(sources.allSatisfy { !$0.isSubscribed })
            subscription.dispose()
        }
    }
}

extension ZipTests {
    func testEachSubscriptionRunsItsOwnZip() {
        let zipped = Observable.zip(Observable.just(1), Observable.just(2)) { $0 + $1 }
        nonisolated(unsafe) var first: [Int] = []
        nonisolated(unsafe) var second: [Int] = []
        let one = zipped.subscribe(onNext: { first.append($0) })
        let two = zipped.subscribe(onNext: { second.append($0) })
        XCTAssertEqual(first, [3])
        XCTAssertEqual(second, [3])
        one.dispose()
        two.dispose()
    }
}
