import RxCore
import RxTesting
import XCTest

final class MaterializeTests: RxTestCase {
    private static func describe(_ event: Event<Int>) -> String {
        event.debugDescription
    }

    func testMaterializeTurnsEveryEventIntoAnElementThenCompletes() {
        let failing = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        XCTAssertEqual(
            collect(failing.materialize().map(Self.describe)),
            [.next("next(1)"), .next("error(boom)"), .completed]
        )
        XCTAssertEqual(
            collect(Observable.of(1).materialize().map(Self.describe)),
            [.next("next(1)"), .next("completed"), .completed]
        )
    }

    func testDematerializeIsTheInverse() {
        let failing = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        XCTAssertEqual(collect(failing.materialize().dematerialize()), [.next(1), .error(TestError.boom)])
        XCTAssertEqual(collect(Observable.of(1, 2).materialize().dematerialize()), [.next(1), .next(2), .completed])
    }

    func testDematerializeEndsAtTheFirstTerminalElementAndDisposesTheSource() {
        let source = DrivenSource<Event<Int>>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.dematerialize())
        source.onNext(.next(1))
        source.onNext(.completed)
        source.onNext(.next(2))
        XCTAssertEqual(recorder.events, [.next(1), .completed])
        XCTAssertEqual(source.observerCount, 0)
        subscription.dispose()
    }

    func testConformance() {
        assertOperatorBasics { $0.materialize().map { $0.element ?? -1 } }
        assertOperatorBasics { $0.materialize().dematerialize() }
    }
}
