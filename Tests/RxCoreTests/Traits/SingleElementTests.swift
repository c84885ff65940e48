import RxCore
import RxTesting
import XCTest

final class SingleElementTests: RxTestCase {
    func testForwardsTheOnlyElementAsSoonAsItArrives() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.single())
        source.onNext(1)
        XCTAssertEqual(recorder.events, [.next(1)])
        source.onCompleted()
        XCTAssertEqual(recorder.events, [.next(1), .completed])
        subscription.dispose()
    }

    func testFailsOnAnEmptySource() {
        XCTAssertEqual(collect(Observable<Int>.empty().single()), [.error(RxError.noElements)])
    }

    func testFailsOnASecondElementAndDisposesTheSource() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.single())
        source.onNext(1)
        source.onNext(2)
        XCTAssertEqual(recorder.events, [.next(1), .error(RxError.moreThanOneElement)])
        XCTAssertEqual(source.observerCount, 0)
        subscription.dispose()
    }

    func testPredicateSelectsTheElementsThatCount() {
        XCTAssertEqual(collect(Observable.of(1, 2, 3).single { $0 == 2 }), [.next(2), .completed])
        XCTAssertEqual(collect(Observable.of(1, 3).single { $0 == 2 }), [.error(RxError.noElements)])
        XCTAssertEqual(
            collect(Observable.of(2, 2).single { $0 == 2 }),
            [.next(2), .error(RxError.moreThanOneElement)]
        )
    }

    func testAThrowingPredicateFailsTheSequence() {
        assertThrowingClosureFails { $0.single { try passOrThrowAt2($0) > 5 } }
    }

    func testConformance() {
        assertOperatorBasics { $0.single() }
    }
}
