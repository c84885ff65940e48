import RxCore
import RxTesting
import XCTest

final class SkipTests: RxTestCase {
    func testSkipDropsTheFirstElements() {
        XCTAssertEqual(collect(Observable.of(1, 2, 3).skip(2)), [.next(3), .completed])
        XCTAssertEqual(collect(Observable.of(1, 2).skip(5)), [.completed])
        XCTAssertEqual(collect(Observable.of(1, 2).skip(0)), [.next(1), .next(2), .completed])
        XCTAssertEqual(collect(Observable.of(1, 2).skip(-3)), [.next(1), .next(2), .completed])
    }

    func testSkipCountsAnewForEachSubscription() {
        let source = Observable.of(1, 2, 3).skip(1)
        XCTAssertEqual(collect(source), collect(source))
    }

    func testSkipWhileDropsTheLeadingRunOnly() {
        XCTAssertEqual(
            collect(Observable.of(1, 2, 5, 1, 6).skip(while: { $0 < 3 })),
            [.next(5), .next(1), .next(6), .completed]
        )
    }

    func testSkipWhileStopsTestingOnceItForwards() {
        nonisolated(unsafe) var tested: [Int] = []
        _ = collect(Observable.of(1, 5, 1, 1).skip(while: { tested.append($0); return $0 < 3 }))
        XCTAssertEqual(tested, [1, 5])
    }

    func testAThrowingPredicateFailsTheSequence() {
        assertThrowingClosureFails { $0.skip(while: { try passOrThrowAt2($0) > 0 }) }
    }

    func testConformance() {
        assertOperatorBasics { $0.skip(1) }
        assertOperatorBasics { $0.skip(while: { $0 < 2 }) }
    }
}
