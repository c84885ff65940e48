import RxCore
import RxTesting
import XCTest

final class ScanTests: RxTestCase {
    func testEmitsEachIntermediateAccumulation() {
        XCTAssertEqual(
            collect(Observable.of(1, 2, 3).scan(10) { $0 + $1 }),
            [.next(11), .next(13), .next(16), .completed]
        )
    }

    func testScanIntoMutatesInPlace() {
        let events = collect(Observable.of("a", "b").scan(into: [String]()) { $0.append($1) })
        XCTAssertEqual(events, [.next(["a"]), .next(["a", "b"]), .completed])
    }

    func testAnEmptySourceEmitsNothingNotEvenTheSeed() {
        XCTAssertEqual(collect(Observable<Int>.empty().scan(0, accumulator: +)), [.completed])
    }

    func testEachSubscriptionStartsFromTheSeed() {
        let source = Observable.of(1, 2).scan(into: 0) { $0 += $1 }
        XCTAssertEqual(collect(source), [.next(1), .next(3), .completed])
        XCTAssertEqual(collect(source), [.next(1), .next(3), .completed])
    }

    func testAThrowingAccumulatorFailsTheSequence() {
        assertThrowingClosureFails { $0.scan(0) { _, value in try passOrThrowAt2(value) } }
        assertThrowingClosureFails { $0.scan(into: 0) { sum, value in sum += try passOrThrowAt2(value) } }
    }

    func testConformance() {
        assertOperatorBasics { $0.scan(0, accumulator: +) }
    }
}
