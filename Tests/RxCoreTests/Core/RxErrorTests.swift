import RxCore
import RxTesting
import XCTest

/// `RxError` cases compare by case and describe themselves in one sentence.
final class RxErrorTests: RxTestCase {
    func testUnknownHasADescriptionAndComparesByCase() {
        XCTAssertEqual(RxError.unknown.description, "The sequence failed for an unknown reason.")
        XCTAssertEqual(String(describing: RxError.unknown), "The sequence failed for an unknown reason.")
        XCTAssertEqual(RxError.unknown, .unknown)
        XCTAssertNotEqual(RxError.unknown, .noElements)
    }

    func testUnknownTravelsAsAnErrorEvent() {
        let events = collect(Observable<Int>.error(RxError.unknown))
        XCTAssertEqual(events, [.error(RxError.unknown)])
    }

    func testEveryCaseHasADistinctDescription() {
        let cases: [RxError] = [.unknown, .noElements, .moreThanOneElement, .timeout, .argumentOutOfRange, .disposed]
        let descriptions = Set(cases.map(\.description))
        XCTAssertEqual(descriptions.count, cases.count)
        XCTAssertFalse(descriptions.contains(""))
    }
}
