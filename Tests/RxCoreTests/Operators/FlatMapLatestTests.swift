import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class FlatMapLatestTests: RxTestCase {
    func testMirrorsOnlyTheLatestInnerAndDisposesThePreviousOne() {
        let outer = ThreadSafeSource<Int>()
        let inners = (0..<2).map { _ in ThreadSafeSource<String>() }
        let recorder = GrammarRecorder<String>()
        let subscription = recorder.subscribe(outer.observable.flatMapLatest { inners[$0].observable })
        outer.onNext(0)
        inners[0].onNext("a1")
        outer.onNext(1)
        XCTAssertEqual(inners[0].disposals, 1)
        inners[0].onNext("a2")
        inners[1].onNext("b1")
        XCTAssertEqual(recorder.elements, ["a1", "b1"])
        subscription.dispose()
        XCTAssertEqual(inners[1].disposals, 1)
        XCTAssertEqual(outer.disposals, 1)
    }

    func testCompletesWhenTheOuterAndTheLatestInnerHaveCompleted() {
        let outer = ThreadSafeSource<Int>()
        let inners = (0..<2).map { _ in ThreadSafeSource<Int>() }
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.flatMapLatest { inners[$0].observable })
        outer.onNext(0)
        outer.onNext(1)
        outer.onCompleted()
        XCTAssertFalse(recorder.isCompleted)
        inners[1].onNext(5)
        inners[1].onCompleted()
        XCTAssertEqual(recorder.elements, [5])
        XCTAssertTrue(recorder.isCompleted)
        recorder.assertGrammar()
        subscription.dispose()

        nonisolated(unsafe) var completed = false
        _ = Observable<Int>.empty().flatMapLatest { Observable.just($0) }.subscribe(onCompleted: { completed = true })
        XCTAssertTrue(completed, "an empty outer sequence completes at once")
    }

    func testAnInnerOrOuterErrorOrAThrowingSelectorTerminates() {
        let outer = ThreadSafeSource<Int>()
        let inner = ThreadSafeSource<Int>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.flatMapLatest { _ in inner.observable })
        outer.onNext(0)
        inner.onError(TestError.boom)
        XCTAssertEqual(recorder.error as? TestError, .boom)
        XCTAssertEqual(outer.disposals, 1)
        recorder.assertGrammar()
        subscription.dispose()

        let throwingOuter = ThreadSafeSource<Int>()
        let throwing = GrammarRecorder<Int>()
        let second = throwing.subscribe(throwingOuter.observable.flatMapLatest { _ -> Observable<Int> in
            throw TestError.other
        })
        throwingOuter.onNext(1)
        XCTAssertEqual(throwing.error as? TestError, .other)
        XCTAssertEqual(throwingOuter.disposals, 1)
        second.dispose()

        let failingOuter = ThreadSafeSource<Int>()
        let failing = GrammarRecorder<Int>()
        let third = failing.subscribe(failingOuter.observable.flatMapLatest { _ in Observable<Int>.never() })
        failingOuter.onNext(1)
        failingOuter.onError(TestError.boom)
        XCTAssertEqual(failing.error as? TestError, .boom)
        third.dispose()
    }

    func testSwitchLatestOfAnObservableOfObservables() {
        let outer = ThreadSafeSource<Observable<Int>>()
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(outer.observable.switchLatest())
        outer.onNext(Observable.just(1))
        outer.onNext(Observable.merge(Observable.just(2), Observable.just(3)))
        outer.onCompleted()
        XCTAssertEqual(recorder.elements, [1, 2, 3])
        XCTAssertTrue(recorder.isCompleted)
        subscription.dispose()
    }

    func testAnElementOfAReplacedInnerNeverFollowsTheSwitchEvenFromAnotherThread() {
        for _ in 0..<100 {
            let outer = ThreadSafeSource<Int>()
            let inners = (0..<2).map { _ in ThreadSafeSource<Int>() }
            let recorder = GrammarRecorder<Int>()
            let subscription = recorder.subscribe(outer.observable.flatMapLatest { inners[$0].observable })
            outer.onNext(0)
            DispatchQueue.concurrentPerform(iterations: 2) { worker in
                if worker == 0 {
                    for value in 0..<500 {
                        inners[0].onNext(value)
                    }
                } else {
                    outer.onNext(1)
                    for value in 1_000..<1_100 {
                        inners[1].onNext(value)
                    }
                    inners[1].onCompleted()
                    outer.onCompleted()
                }
            }
            let elements = recorder.elements
            if let firstOfNew = elements.firstIndex(where: { $0 >= 1_000 }) {
                XCTAssertTrue(elements[firstOfNew...].allSatisfy { $0 >= 1_000 })
            }
            XCTAssertEqual(elements.filter { $0 >= 1_000 }, Array(1_000..<1_100))
            XCTAssertTrue(recorder.isCompleted)
            recorder.assertGrammar()
            subscription.dispose()
        }
    }
}
