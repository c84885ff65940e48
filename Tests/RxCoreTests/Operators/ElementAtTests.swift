import RxCore
import RxTesting
import XCTest

final class ElementAtTests: RxTestCase {
    func testEmitsTheElementAtTheIndexThenCompletesAndDisposesTheSource() {
        let source = DrivenSource<String>()
        let recorder = Recorder<String>()
        let subscription = recorder.subscribe(source.observable.element(at: 1))
        source.onNext("a")
        source.onNext("b")
        XCTAssertEqual(recorder.events, [.next("b"), .completed])
        XCTAssertEqual(source.observerCount, 0)
        subscription.dispose()
    }

    func testFailsWhenTheSourceIsTooShort() {
        XCTAssertEqual(collect(Observable.of(1, 2).element(at: 2)), [.error(RxError.argumentOutOfRange)])
    }

    func testANegativeIndexFailsWithoutSubscribing() {
        let source = DrivenSource<Int>()
        XCTAssertEqual(collect(source.observable.element(at: -1)), [.error(RxError.argumentOutOfRange)])
        XCTAssertEqual(source.subscriptions, 0)
    }

    func testElementAtIsTheOlderSpelling() {
        XCTAssertEqual(collect(Observable.of(1, 2, 3).elementAt(0)), [.next(1), .completed])
    }

    func testConformance() {
        assertOperatorBasics { $0.element(at: 1) }
    }
}
