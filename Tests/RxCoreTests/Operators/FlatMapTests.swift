import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class FlatMapTests: RxTestCase {
    func testMapsEachElementToASequenceAndMergesThem() {
        let outer = ThreadSafeSource<Int>()
        let inners = (0..<3).map { _ in ThreadSafeSource<String>() }
        let recorder = GrammarRecorder<String>()
        let subscription = recorder.subscribe(outer.observable.flatMap { inners[$0].observable })
        outer.onNext(0)
        outer.onNext(1)
        inners[1].onNext("b1")
        inners[0].onNext("a1")
        outer.onNext(2)
        inners[2].onNext("c1")
        inners[0].onNext("a2")
        outer.onCompleted()
        inners.forEach { $0.onCompleted() }
        XCTAssertEqual(recorder.elements, ["b1", "a1", "c1", "a2"])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testSynchronousInnerSequencesAreFlattenedInOrder() {
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(
            Observable<Int>.create { observer in
                (1...3).forEach(observer.onNext)
                observer.onCompleted()
                return Disposables.create()
            }
            .flatMap { value in Observable.merge(Observable.just(value), Observable.just(value * 10)) }
        )
        XCTAssertEqual(recorder.elements, [1, 10, 2, 20, 3, 30])
        XCTAssertTrue(recorder.isCompleted)
        subscription.dispose()
    }

    func testAThrowingSelectorTerminatesAndDisposesTheOuterAndTheInners() {
        let outer = ThreadSafeSource<Int>()
        let inner = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.flatMap { value -> Observable<Int> in
            if value > 1 { throw TestError.other }
            return inner.observable
        })
        outer.onNext(1)
        inner.onNext(7)
        outer.onNext(2)
        XCTAssertEqual(recorder.elements, [7])
        XCTAssertEqual(recorder.error as? TestError, .other)
        XCTAssertEqual(outer.disposals, 1)
        XCTAssertEqual(inner.disposals, 1)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testAnInnerErrorTerminatesAndDisposesTheOuter() {
        let outer = ThreadSafeSource<Int>()
        let inners = (0..<2).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.flatMap { inners[$0].observable })
        outer.onNext(0)
        outer.onNext(1)
        inners[1].onError(TestError.boom)
        XCTAssertEqual(recorder.error as? TestError, .boom)
        XCTAssertEqual(outer.disposals, 1)
        XCTAssertEqual(inners[0].disposals, 1)
        inners[0].onNext(1)
        recorder.assertGrammar()
        subscription.dispose()
    }

    func testDisposeMidStreamDisposesTheOuterAndEveryRunningInner() {
        let outer = ThreadSafeSource<Int>()
        let inners = (0..<3).map { _ in ThreadSafeSource<Int>() }
        nonisolated(unsafe) var received: [Int] = []
        let subscription = outer.observable.flatMap { inners[$0].observable }.subscribe(onNext: { received.append($0) })
        (0..<3).forEach(outer.onNext)
        inners[0].onNext(1)
        inners[2].onCompleted()
        subscription.dispose()
        inners[1].onNext(2)
        XCTAssertEqual(received, [1])
        XCTAssertEqual(outer.disposals, 1)
        XCTAssertEqual(inners.map(\.disposals), [1, 1, 1])
    }

    func testConcatMapSubscribesEachInnerAfterThePreviousCompletedButMapsOnArrival() {
        let outer = ThreadSafeSource<Int>()
        let inners = (0..<3).map { _ in ThreadSafeSource<Int>() }
        nonisolated(unsafe) var mapped: [Int] = []
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.concatMap { index -> Observable<Int> in
            mapped.append(index)
            return inners[index].observable
        })
        (0..<3).forEach(outer.onNext)
        outer.onCompleted()
        XCTAssertEqual(mapped, [0, 1, 2])
        XCTAssertEqual(inners.map(\.subscriptions), [1, 0, 0])
        inners[0].onNext(1)
        inners[0].onCompleted()
        XCTAssertEqual(inners.map(\.subscriptions), [1, 1, 0])
        inners[1].onCompleted()
        inners[2].onNext(3)
        inners[2].onCompleted()
        XCTAssertEqual(recorder.elements, [1, 3])
        XCTAssertTrue(recorder.isCompleted)
        subscription.dispose()
    }

    func testConcatMapOverAHundredThousandSynchronousInnersDoesNotGrowTheStack() {
        let count = 100_000
        // The outer emits everything while the first inner is still running, so the rest wait in
        // the queue and are subscribed, one completing synchronously after the other, in a loop.
        let gate = ThreadSafeSource<Int>()
        nonisolated(unsafe) var sum = 0
        nonisolated(unsafe) var completed = false
        let subscription = Observable<Int>.create { observer in
            (0..<count).forEach(observer.onNext)
            observer.onCompleted()
            return Disposables.create()
        }
        .concatMap { value in value == 0 ? gate.observable : Observable.just(value) }
        .subscribe(onNext: { sum += $0 }, onCompleted: { completed = true })
        XCTAssertFalse(completed)
        gate.onCompleted()
        XCTAssertEqual(sum, (0..<count).reduce(0, +))
        XCTAssertTrue(completed)
        subscription.dispose()
    }

    func testFlatMapFirstIgnoresElementsWhileAnInnerRunsWithoutMappingThem() {
        let outer = ThreadSafeSource<Int>()
        let inners = (0..<3).map { _ in ThreadSafeSource<Int>() }
        nonisolated(unsafe) var mapped: [Int] = []
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.flatMapFirst { index -> Observable<Int> in
            mapped.append(index)
            return inners[index].observable
        })
        outer.onNext(0)
        outer.onNext(1)
        inners[0].onNext(10)
        inners[0].onCompleted()
        outer.onNext(2)
        inners[2].onNext(30)
        outer.onCompleted()
        XCTAssertFalse(recorder.isCompleted)
        inners[2].onCompleted()
        XCTAssertEqual(mapped, [0, 2])
        XCTAssertEqual(recorder.elements, [10, 30])
        XCTAssertTrue(recorder.isCompleted)
        subscription.dispose()
    }

    func testConcurrentInnersAreSerializedKeepTheirOrderAndCompleteOnce() {
        let perInner = 1_500
        for _ in 0..<30 {
            let inners = (0..<4).map { _ in ThreadSafeSource<Int>() }
            let outer = ThreadSafeSource<Int>()
            let recorder = GrammarRecorder<Int>()
            let subscription = recorder.subscribe(outer.observable.flatMap { inners[$0].observable })
            (0..<4).forEach(outer.onNext)
            outer.onCompleted()
            DispatchQueue.concurrentPerform(iterations: 4) { worker in
                for value in 0..<perInner {
                    inners[worker].onNext(worker * perInner + value)
                }
                inners[worker].onCompleted()
            }
            let elements = recorder.elements
            XCTAssertEqual(elements.count, 4 * perInner)
            for worker in 0..<4 {
                let expected = Array(worker * perInner..<(worker + 1) * perInner)
                XCTAssertEqual(elements.filter { $0 / perInner == worker }, expected)
            }
            XCTAssertTrue(recorder.isCompleted)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }

    func testInnersSubscribedAndCompletingConcurrentlyWithTheOuterCompleteExactlyOnce() {
        for _ in 0..<40 {
            let outer = ThreadSafeSource<Int>()
            let recorder = GrammarRecorder<Int>()
            let queue = DispatchQueue(label: "inner", attributes: .concurrent)
            let subscription = recorder.subscribe(outer.observable.concatMap { value in
                Observable<Int>.create { observer in
                    queue.async {
                        observer.onNext(value)
                        observer.onCompleted()
                    }
                    return Disposables.create()
                }
            })
            // The outer emits here while the inners complete on other threads, each completion
            // racing the outer to subscribe the next waiting inner.
            (0..<300).forEach(outer.onNext)
            outer.onCompleted()
            let deadline = Date().addingTimeInterval(5)
            while recorder.terminalCount == 0 && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.001)
            }
            XCTAssertEqual(recorder.elements, Array(0..<300))
            XCTAssertTrue(recorder.isCompleted)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }
}

extension FlatMapTests {
    func testEachSubscriptionRunsItsOwnFlatMapAndAnInnerErrorDuringSubscribeStopsTheOuter() {
        let mapped = Observable.merge(Observable.just(1), Observable.just(2)).flatMap { Observable.just($0 * 10) }
        nonisolated(unsafe) var first: [Int] = []
        nonisolated(unsafe) var second: [Int] = []
        _ = mapped.subscribe(onNext: { first.append($0) })
        _ = mapped.subscribe(onNext: { second.append($0) })
        XCTAssertEqual(first, [10, 20])
        XCTAssertEqual(second, [10, 20])

        nonisolated(unsafe) var selectorCalls = 0
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(
            Observable<Int>.create { observer in
                (1...5).forEach(observer.onNext)
                observer.onCompleted()
                return Disposables.create()
            }
            .flatMap { value -> Observable<Int> in
                selectorCalls += 1
                return value == 2 ? Observable.error(TestError.boom) : Observable.just(value)
            }
        )
        XCTAssertEqual(recorder.elements, [1])
        XCTAssertEqual(recorder.error as? TestError, .boom)
        XCTAssertEqual(selectorCalls, 2, "the outer is disposed as soon as the inner error is delivered")
        recorder.assertGrammar()
        subscription.dispose()
    }
}
