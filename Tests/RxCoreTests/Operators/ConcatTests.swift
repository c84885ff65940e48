import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class ConcatTests: RxTestCase {
    func testSubscribesEachSourceAfterThePreviousCompletedAndCompletesAfterTheLast() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(
            Observable.concat(sources[0].observable, sources[1].observable, sources[2].observable)
        )
        XCTAssertEqual(sources.map(\.subscriptions), [1, 0, 0])
        sources[0].onNext(1)
        sources[0].onCompleted()
        XCTAssertEqual(sources.map(\.subscriptions), [1, 1, 0])
        sources[1].onCompleted()
        sources[2].onNext(3)
        XCTAssertFalse(recorder.isCompleted)
        sources[2].onCompleted()
        XCTAssertEqual(recorder.elements, [1, 3])
        XCTAssertTrue(recorder.isCompleted)
        XCTAssertEqual(sources.map(\.disposals), [1, 1, 1])
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testAnErrorStopsAndLaterSourcesAreNeverSubscribed() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.concat(sources.map(\.observable)))
        sources[0].onCompleted()
        sources[1].onError(TestError.boom)
        XCTAssertEqual(recorder.error as? TestError, .boom)
        XCTAssertEqual(sources.map(\.subscriptions), [1, 1, 0])
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testDisposeDisposesTheRunningSourceAndSubscribesNoMore() {
        let sources = (0..<2).map { _ in ThreadSafeSource<Int>() }
        nonisolated(unsafe) var received: [Int] = []
        let subscription = Observable.concat(sources.map(\.observable)).subscribe(onNext: { received.append($0) })
        sources[0].onNext(1)
        subscription.dispose()
        sources[0].onNext(2)
        sources[0].onCompleted()
        XCTAssertEqual(received, [1])
        XCTAssertEqual(sources.map(\.subscriptions), [1, 0])
        XCTAssertEqual(sources[0].disposals, 1)
    }

    func testInstanceFormEmptyListAndAnyCollection() {
        nonisolated(unsafe) var events: [String] = []
        _ = Observable.just(1).concat(Observable.just(2)).subscribe(
            onNext: { events.append("\($0)") }, onCompleted: { events.append("completed") }
        )
        _ = Observable<Int>.concat([]).subscribe(onCompleted: { events.append("empty") })
        let slice: ArraySlice<Observable<Int>> = [Observable.just(7), Observable.just(8)][1...]
        _ = Observable.concat(slice).subscribe(onNext: { events.append("\($0)") })
        XCTAssertEqual(events, ["1", "2", "completed", "empty", "8"])
    }

    func testAHundredThousandSynchronousSourcesDoNotGrowTheStack() {
        let count = 100_000
        nonisolated(unsafe) var sum = 0
        nonisolated(unsafe) var completed = false
        let subscription = Observable.concat((0..<count).map { Observable.just($0) })
            .subscribe(onNext: { sum += $0 }, onCompleted: { completed = true })
        XCTAssertEqual(sum, (0..<count).reduce(0, +))
        XCTAssertTrue(completed)
        subscription.dispose()
    }

    func testALazyCollectionIsReadOnlyAsFarAsCompletionsTakeItOncePerSubscription() throws {
        let made = LockedBox([Int]())
        let sources = (0..<3).lazy.map { index -> Observable<Int> in
            made.mutate { $0.append(index) }
            return Observable.just(index)
        }
        let concatenated = Observable.concat(sources)
        XCTAssertEqual(made.value, [], "nothing is made before a subscription")
        XCTAssertEqual(try concatenated.take(1).toBlocking().toArray(), [0])
        XCTAssertEqual(made.value, [0], "take(1) needed the first source only")
        XCTAssertEqual(try concatenated.toBlocking().toArray(), [0, 1, 2])
        XCTAssertEqual(made.value, [0, 0, 1, 2])
    }

    func testConcatsNestedTenThousandDeepRunInConstantStackDepth() throws {
        // Built in a loop: each `concat` holds the previous one as its first source.
        let chained = (1..<10_000).reduce(Observable.just(0)) { $0.concat(Observable.just($1)) }
        XCTAssertEqual(try chained.toBlocking().toArray(), Array(0..<10_000))
        // A lazy collection whose last element is the next level (tail recursion).
        XCTAssertEqual(try Self.levels(from: 0).take(10_000).toBlocking().toArray(), Array(0..<10_000))
    }

    func testAnInfiniteSequenceOfSourcesIsReadOnlyAsFarAsNeeded() throws {
        let naturals = sequence(first: 0) { $0 + 1 }.lazy.map { Observable.just($0) }
        XCTAssertEqual(try Observable.concat(naturals).take(5).toBlocking().toArray(), [0, 1, 2, 3, 4])
    }

    private static func levels(from start: Int) -> Observable<Int> {
        Observable.concat([0, 1].lazy.map { $0 == 0 ? Observable.just(start) : levels(from: start + 1) })
    }

    func testSourcesCompletingOnOtherThreadsKeepTheOrderAndCompleteOnce() {
        let queue = DispatchQueue(label: "concat-sources", attributes: .concurrent)
        for _ in 0..<20 {
            let sources = (0..<200).map { value in
                Observable<Int>.create { observer in
                    queue.async {
                        observer.onNext(value)
                        observer.onCompleted()
                    }
                    return Disposables.create()
                }
            }
            let recorder = GrammarRecorder<Int>()
            let subscription = recorder.subscribe(Observable.concat(sources))
            let deadline = Date().addingTimeInterval(5)
            while recorder.terminalCount == 0 && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.001)
            }
            XCTAssertEqual(recorder.elements, Array(0..<200))
            recorder.assertGrammar()
            subscription.dispose()
        }
    }
}
