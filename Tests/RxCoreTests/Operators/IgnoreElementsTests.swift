import RxCore
import RxTesting
import XCTest

/// Lets an `Observable<Never>` be recorded as one of `Int`s (a closure over `Never` would warn).
private func asInts(_ source: Observable<Never>) -> Observable<Int> {
    source.materialize()
        .compactMap { $0.isCompleted ? Event<Int>.completed : $0.error.map { Event<Int>.error($0) } }
        .dematerialize()
}

final class IgnoreElementsTests: RxTestCase {
    func testForwardsOnlyTheTerminalEvent() {
        XCTAssertEqual(collect(asInts(Observable.of(1, 2).ignoreElements())), [.completed])
        let failing = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        XCTAssertEqual(collect(asInts(failing.ignoreElements())), [.error(TestError.boom)])
    }

    func testDisposesTheSourceWhenItEnds() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(asInts(source.observable.ignoreElements()))
        source.onNext(1)
        XCTAssertEqual(recorder.events, [])
        source.onCompleted()
        XCTAssertEqual(recorder.events, [.completed])
        XCTAssertEqual(source.observerCount, 0)
        subscription.dispose()
    }

    func testConformance() {
        assertOperatorBasics { asInts($0.ignoreElements()) }
    }
}
