import RxCore
import RxTesting
import XCTest

final class ReduceTests: RxTestCase {
    func testEmitsTheFinalAccumulationOnCompletion() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.reduce(0, accumulator: +))
        source.onNext(1)
        source.onNext(2)
        XCTAssertEqual(recorder.events, [], "nothing before completion")
        source.onCompleted()
        XCTAssertEqual(recorder.events, [.next(3), .completed])
        subscription.dispose()
    }

    func testAnEmptySourceYieldsTheSeed() {
        XCTAssertEqual(collect(Observable<Int>.empty().reduce(7, accumulator: +)), [.next(7), .completed])
    }

    func testMapResultTransformsTheFinalValue() {
        let events = collect(Observable.of(1, 2, 3).reduce(0, accumulator: +, mapResult: { "sum \($0)" }))
        XCTAssertEqual(events, [.next("sum 6"), .completed])
    }

    func testAThrowingMapResultFailsTheSequence() {
        let events = collect(Observable.of(1).reduce(0, accumulator: +, mapResult: { _ -> Int in throw TestError.boom }))
        XCTAssertEqual(events, [.error(TestError.boom)])
    }

    func testAnErrorFromTheSourcePassesThroughWithoutAResult() {
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(TestError.other)
            return Disposables.create()
        }
        XCTAssertEqual(collect(source.reduce(0, accumulator: +)), [.error(TestError.other)])
    }

    func testAThrowingAccumulatorFailsTheSequence() {
        assertThrowingClosureFails { $0.reduce(0) { _, value in try passOrThrowAt2(value) } }
    }

    func testConformance() {
        assertOperatorBasics { $0.reduce(0, accumulator: +) }
        assertOperatorBasics { $0.reduce(0, accumulator: +, mapResult: { "\($0)" }) }
    }
}
