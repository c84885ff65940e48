import RxCore
import RxTesting
import XCTest

final class DistinctUntilChangedTests: RxTestCase {
    private struct Item: Equatable {
        let id: Int
        let name: String
    }

    func testDropsConsecutiveDuplicatesOnly() {
        XCTAssertEqual(
            collect(Observable.of(1, 1, 2, 2, 1, 3, 3).distinctUntilChanged()),
            [.next(1), .next(2), .next(1), .next(3), .completed]
        )
    }

    func testKeySelectorComparesKeys() {
        let source = Observable.of(Item(id: 1, name: "a"), Item(id: 1, name: "b"), Item(id: 2, name: "b"))
        XCTAssertEqual(
            collect(source.distinctUntilChanged { $0.id }),
            [.next(Item(id: 1, name: "a")), .next(Item(id: 2, name: "b")), .completed]
        )
        XCTAssertEqual(
            collect(source.distinctUntilChanged(at: \.name)),
            [.next(Item(id: 1, name: "a")), .next(Item(id: 1, name: "b")), .completed]
        )
    }

    func testComparerDecidesEquality() {
        let events = collect(Observable.of(1, 2, 5, 6).distinctUntilChanged { abs($0 - $1) <= 1 })
        XCTAssertEqual(events, [.next(1), .next(5), .completed])
    }

    func testKeyAndComparerTogether() {
        let events = collect(Observable.of("a", "A", "b").distinctUntilChanged({ $0.lowercased() }, comparer: { $0 == $1 }))
        XCTAssertEqual(events, [.next("a"), .next("b"), .completed])
    }

    func testEachSubscriptionStartsWithoutAPreviousElement() {
        let source = Observable.of(1, 1).distinctUntilChanged()
        XCTAssertEqual(collect(source), [.next(1), .completed])
        XCTAssertEqual(collect(source), [.next(1), .completed])
    }

    func testThrowingClosuresFailTheSequence() {
        assertThrowingClosureFails { $0.distinctUntilChanged { try passOrThrowAt2($0) } }
        assertThrowingClosureFails { $0.distinctUntilChanged { _, new in try passOrThrowAt2(new) < 0 } }
    }

    func testConformance() {
        assertOperatorBasics { $0.distinctUntilChanged() }
    }
}
