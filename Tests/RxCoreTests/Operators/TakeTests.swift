import Foundation
import RxCore
import RxTesting
import XCTest

final class TakeTests: RxTestCase {
    func testTakeEmitsTheFirstElementsThenCompletesAndDisposesTheSource() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.take(2))
        source.onNext(1)
        XCTAssertEqual(source.observerCount, 1)
        source.onNext(2)
        XCTAssertEqual(source.observerCount, 0, "source disposed as soon as the last element is through")
        source.onNext(3)
        XCTAssertEqual(recorder.events, [.next(1), .next(2), .completed])
        subscription.dispose()
    }

    func testTakeOfMoreThanAvailableEndsWithTheSource() {
        XCTAssertEqual(collect(Observable.of(1, 2).take(5)), [.next(1), .next(2), .completed])
        XCTAssertEqual(collect(Observable<Int>.error(TestError.boom).take(5)), [.error(TestError.boom)])
    }

    func testTakeZeroCompletesWithoutSubscribing() {
        let source = DrivenSource<Int>()
        XCTAssertEqual(collect(source.observable.take(0)), [.completed])
        XCTAssertEqual(source.subscriptions, 0)
    }

    func testTakeNegativeFailsWithArgumentOutOfRangeWithoutSubscribing() {
        let source = DrivenSource<Int>()
        XCTAssertEqual(collect(source.observable.take(-1)), [.error(RxError.argumentOutOfRange)])
        XCTAssertEqual(source.subscriptions, 0)
    }

    func testTakeConformance() {
        assertOperatorBasics { $0.take(2) }
        assertOperatorBasics { $0.take(10) }
    }

    func testTakeWhileStopsAtTheFirstFailingElement() {
        let source = Observable.of(1, 2, 3, 1)
        XCTAssertEqual(collect(source.take(while: { $0 < 3 })), [.next(1), .next(2), .completed])
        XCTAssertEqual(
            collect(source.take(while: { $0 < 3 }, behavior: .inclusive)),
            [.next(1), .next(2), .next(3), .completed]
        )
        XCTAssertEqual(collect(source.take(while: { _ in true })), [.next(1), .next(2), .next(3), .next(1), .completed])
    }

    func testTakeWhileDisposesTheSourceWhenItStops() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.take(while: { $0 > 0 }))
        source.onNext(1)
        source.onNext(0)
        XCTAssertEqual(source.observerCount, 0)
        XCTAssertEqual(recorder.events, [.next(1), .completed])
        subscription.dispose()
    }

    func testTakeUntilPredicateStopsAtTheFirstMatchingElement() {
        let source = Observable.of(1, 2, 3, 4)
        XCTAssertEqual(collect(source.take(until: { $0 == 3 })), [.next(1), .next(2), .completed])
        XCTAssertEqual(
            collect(source.take(until: { $0 == 3 }, behavior: .inclusive)),
            [.next(1), .next(2), .next(3), .completed]
        )
    }

    func testAThrowingPredicateFailsTheSequenceAndDisposesTheSource() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.take(while: { value in
            if value == 2 { throw TestError.boom }
            return true
        }))
        source.onNext(1)
        source.onNext(2)
        source.onNext(3)
        XCTAssertEqual(recorder.events, [.next(1), .error(TestError.boom)])
        XCTAssertEqual(source.observerCount, 0)
        subscription.dispose()
    }

    func testTakeWhileConformance() {
        assertOperatorBasics { $0.take(while: { $0 < 100 }) }
        assertOperatorBasics { $0.take(until: { $0 == 2 }, behavior: .inclusive) }
    }
}
