import Foundation
import RxCore
import RxTesting
import XCTest

final class FromTests: RxTestCase {
    func testFromEmitsEveryElementInOrderThenCompletes() {
        XCTAssertEqual(collect(Observable.from([1, 2, 3])), [.next(1), .next(2), .next(3), .completed])
        XCTAssertEqual(collect(Observable.from(Set<Int>())), [.completed])
        XCTAssertEqual(collect(Observable.from(stride(from: 0, to: 10, by: 4))), [.next(0), .next(4), .next(8), .completed])
    }

    func testOfEmitsItsArgumentsThenCompletes() {
        XCTAssertEqual(collect(Observable.of("a", "b")), [.next("a"), .next("b"), .completed])
        XCTAssertEqual(collect(Observable<String>.of()), [.completed])
    }

    func testEachSubscriptionIteratesAnew() {
        let source = Observable.of(1, 2)
        XCTAssertEqual(collect(source), collect(source))
        XCTAssertEqual(collect(source).count, 3)
    }

    func testIterationStopsWhenDownstreamIsDoneEvenThroughOtherOperators() {
        var pulled = 0
        // Long but finite, so that a broken implementation fails the assertion instead of hanging.
        let naturals = sequence(first: 0) { value -> Int? in
            pulled += 1
            return value < 100_000 ? value + 1 : nil
        }
        let events = collect(Observable.from(naturals).map { $0 * 10 }.filter { _ in true }.take(2))
        XCTAssertEqual(events, [.next(0), .next(10), .completed])
        XCTAssertLessThanOrEqual(pulled, 2, "the infinite sequence must stop being iterated")
    }

    func testIterationStopsWhenAThrowingOperatorEndsTheSubscription() {
        var pulled = 0
        let naturals = sequence(first: 0) { value in
            pulled += 1
            return value + 1
        }
        let events = collect(Observable.from(naturals).map { value -> Int in
            if value == 3 { throw TestError.boom }
            return value
        })
        XCTAssertEqual(events, [.next(0), .next(1), .next(2), .error(TestError.boom)])
        XCTAssertEqual(pulled, 3)
    }

    func testDeferredCallsTheFactoryOncePerSubscription() {
        nonisolated(unsafe) var calls = 0
        let source = Observable<Int>.deferred {
            calls += 1
            return .just(calls)
        }
        XCTAssertEqual(calls, 0, "nothing runs before subscription")
        XCTAssertEqual(collect(source), [.next(1), .completed])
        XCTAssertEqual(collect(source), [.next(2), .completed])
        XCTAssertEqual(calls, 2)
    }

    func testDeferredTurnsAThrownErrorIntoOnError() {
        let source = Observable<Int>.deferred { throw TestError.boom }
        XCTAssertEqual(collect(source), [.error(TestError.boom)])
    }

    func testDeferredDisposingDisposesTheInnerSubscription() {
        let inner = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(Observable.deferred { inner.observable })
        inner.onNext(1)
        subscription.dispose()
        inner.onNext(2)
        XCTAssertEqual(recorder.events, [.next(1)])
        XCTAssertEqual(inner.disposals, 1)
        XCTAssertEqual(recorder.disposed, 1)
    }
}
