import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class MergeTests: RxTestCase {
    func testMergesElementsAsTheyArriveAndCompletesWhenAllSourcesHave() {
        let first = ThreadSafeSource<Int>()
        let second = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.merge(first.observable, second.observable))
        first.onNext(1)
        second.onNext(10)
        first.onNext(2)
        first.onCompleted()
        XCTAssertFalse(recorder.isCompleted)
        second.onNext(20)
        second.onCompleted()
        XCTAssertEqual(recorder.elements, [1, 10, 2, 20])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testAnEmptyListCompletesAtOnceAndAnyCollectionOfSourcesWorks() {
        nonisolated(unsafe) var events: [String] = []
        _ = Observable<Int>.merge([]).subscribe(onCompleted: { events.append("completed") })
        XCTAssertEqual(events, ["completed"])

        let recorder = GrammarRecorder<Int>()
        let sources: ArraySlice<Observable<Int>> = [Observable.just(1), Observable.just(2), Observable.just(3)][1...]
        let subscription = recorder.subscribe(Observable.merge(sources))
        XCTAssertEqual(recorder.elements, [2, 3])
        XCTAssertTrue(recorder.isCompleted)
        subscription.dispose()
    }

    func testAnErrorFromOneSourceTerminatesAndDisposesTheOthers() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.merge(sources.map(\.observable)))
        sources[0].onNext(1)
        sources[1].onError(TestError.boom)
        sources[2].onNext(3)
        XCTAssertEqual(recorder.elements, [1])
        XCTAssertEqual(recorder.error as? TestError, .boom)
        XCTAssertEqual(sources.map(\.disposals), [1, 1, 1])
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testDisposeDisposesEverySourceOnceAndDeliversNothingAfter() {
        let sources = (0..<3).map { _ in ThreadSafeSource<Int>() }
        nonisolated(unsafe) var received: [Int] = []
        nonisolated(unsafe) var disposed = 0
        let subscription = Observable.merge(sources.map(\.observable))
            .subscribe(onNext: { received.append($0) }, onDisposed: { disposed += 1 })
        sources[1].onNext(1)
        subscription.dispose()
        sources[0].onNext(2)
        sources[2].onCompleted()
        XCTAssertEqual(received, [1])
        XCTAssertEqual(disposed, 1)
        XCTAssertEqual(sources.map(\.disposals), [1, 1, 1])
    }

    func testMergeOfAnObservableOfObservablesNeedsTheOuterAndEveryInnerToComplete() {
        let outer = ThreadSafeSource<Observable<Int>>()
        let inners = (0..<2).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.merge())
        outer.onNext(inners[0].observable)
        inners[0].onNext(1)
        outer.onNext(inners[1].observable)
        inners[1].onNext(2)
        inners[0].onNext(3)
        inners[0].onCompleted()
        inners[1].onCompleted()
        XCTAssertFalse(recorder.isCompleted, "the outer sequence may still bring more")
        outer.onCompleted()
        XCTAssertEqual(recorder.elements, [1, 2, 3])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testMaxConcurrentHoldsBackExtraSourcesUntilOneCompletes() {
        let outer = ThreadSafeSource<Observable<Int>>()
        let inners = (0..<3).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.merge(maxConcurrent: 2))
        inners.forEach { outer.onNext($0.observable) }
        outer.onCompleted()
        XCTAssertEqual(inners.map(\.subscriptions), [1, 1, 0])
        inners[1].onNext(1)
        inners[1].onCompleted()
        XCTAssertEqual(inners.map(\.subscriptions), [1, 1, 1])
        inners[2].onNext(2)
        inners[2].onCompleted()
        XCTAssertFalse(recorder.isCompleted)
        inners[0].onCompleted()
        XCTAssertEqual(recorder.elements, [1, 2])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testMaxConcurrentIsNeverExceededWhenInnersCompleteOnOtherThreads() {
        for _ in 0..<20 {
            let active = LockedBox((now: 0, most: 0))
            let inners = (0..<100).map { value in
                Observable<Int>.create { observer in
                    active.mutate { $0.now += 1; $0.most = max($0.most, $0.now) }
                    DispatchQueue.global().async {
                        active.mutate { $0.now -= 1 }
                        observer.onNext(value)
                        observer.onCompleted()
                    }
                    return Disposables.create()
                }
            }
            let recorder = GrammarRecorder<Int>()
            let done = DispatchSemaphore(value: 0)
            let subscription = recorder.subscribe(Observable.from(inners).merge(maxConcurrent: 3).do(afterCompleted: { done.signal() }))
            XCTAssertEqual(done.wait(timeout: .now() + 5), .success)
            XCTAssertEqual(recorder.elements.sorted(), Array(0..<100))
            XCTAssertLessThanOrEqual(active.value.most, 3)
            XCTAssertTrue(recorder.isCompleted)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }

    func testMaxConcurrentBelowOneFailsWithArgumentOutOfRange() {
        nonisolated(unsafe) var failure: Error?
        _ = Observable<Observable<Int>>.just(.just(1)).merge(maxConcurrent: 0).subscribe(onError: { failure = $0 })
        XCTAssertEqual(failure as? RxError, .argumentOutOfRange)
    }

    func testConcatOfAnObservableOfObservablesSubscribesOneAfterTheOther() {
        let outer = ThreadSafeSource<Observable<Int>>()
        let inners = (0..<2).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.concat())
        outer.onNext(inners[0].observable)
        outer.onNext(inners[1].observable)
        XCTAssertEqual(inners.map(\.subscriptions), [1, 0])
        inners[0].onNext(1)
        inners[0].onCompleted()
        inners[1].onNext(2)
        outer.onCompleted()
        inners[1].onCompleted()
        XCTAssertEqual(recorder.elements, [1, 2])
        XCTAssertTrue(recorder.isCompleted)
        subscription.dispose()
    }

    func testAnElementSentFromDownstreamsReactionIsDeliveredAfterTheCurrentOne() {
        let first = ThreadSafeSource<Int>()
        let second = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(Observable.merge(first.observable, second.observable)) { value in
            if value < 4 {
                second.onNext(value + 1)
                first.onNext(value + 100)
            }
        }
        first.onNext(1)
        XCTAssertEqual(recorder.elements, [1, 2, 101, 3, 102, 4, 103])
        recorder.assertGrammar(terminalCount: 0)
        subscription.dispose()
    }

    func testConcurrentSourcesAreSerializedKeepTheirOrderAndCompleteOnce() {
        let perSource = 2_000
        for _ in 0..<30 {
            let sources = (0..<4).map { _ in ThreadSafeSource<Int>() }
            let recorder = GrammarRecorder<Int>()
            let subscription = recorder.subscribe(Observable.merge(sources.map(\.observable)))
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for value in 0..<perSource {
                    sources[worker].onNext(worker * perSource + value)
                }
                sources[worker].onCompleted()
            }
            let elements = recorder.elements
            XCTAssertEqual(elements.count, 4 * perSource)
            for worker in 0..<4 {
                let mine = elements.filter { $0 / perSource == worker }
                XCTAssertEqual(mine, Array(worker * perSource..<(worker + 1) * perSource))
            }
            XCTAssertTrue(recorder.isCompleted)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }

    func testAConcurrentErrorEndsTheSequenceExactlyOnceAndDisposesEverySource() {
        for iteration in 0..<40 {
            let sources = (0..<4).map { _ in ThreadSafeSource<Int>() }
            let recorder = GrammarRecorder<Int>()
            let subscription = recorder.subscribe(Observable.merge(sources.map(\.observable)))
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for value in 0..<500 {
                    sources[worker].onNext(value)
                    if worker == iteration % 4 && value == 100 {
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
