import RxCore
import RxTesting
import XCTest

final class EnumeratedTests: RxTestCase {
    func testPairsElementsWithTheirIndexFromZero() {
        let events = collect(Observable.of("a", "b", "c").enumerated().map { "\($0.index)\($0.element)" })
        XCTAssertEqual(events, [.next("0a"), .next("1b"), .next("2c"), .completed])
    }

    func testEachSubscriptionCountsFromZero() {
        let source = Observable.of("a").enumerated().map(\.index)
        XCTAssertEqual(collect(source), [.next(0), .completed])
        XCTAssertEqual(collect(source), [.next(0), .completed])
    }

    func testConformance() {
        assertOperatorBasics { $0.enumerated().map { $0.index * 100 + $0.element } }
    }
}
