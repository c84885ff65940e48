import RxCore
import RxTesting
import XCTest

final class CompactMapTests: RxTestCase {
    func testDropsNilResults() {
        let events = collect(Observable.of("1", "x", "3").compactMap { Int($0) })
        XCTAssertEqual(events, [.next(1), .next(3), .completed])
    }

    func testForwardsAnErrorFromTheSource() {
        XCTAssertEqual(collect(Observable<Int>.error(TestError.boom).compactMap { $0 }), [.error(TestError.boom)])
    }

    func testAThrowingTransformFailsTheSequence() {
        assertThrowingClosureFails { $0.compactMap { try passOrThrowAt2($0) } }
    }

    func testConformance() {
        assertOperatorBasics { $0.compactMap { $0.isMultiple(of: 2) ? nil : $0 } }
    }
}
