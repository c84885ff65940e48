import Foundation
import RxCore
@testable import RxTesting
import XCTest

final class TestSchedulerEventEqualityTests: RxTestCase {
    private enum Failure: Error, Equatable {
        case one, two
    }

    private struct Described: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }

    private struct AlsoDescribed: Error, CustomStringConvertible {
        let text: String
        var description: String { text }
    }

    func testEventsCompareByCaseAndElement() {
        XCTAssertEqual(Event.next(1), Event<Int>.next(1))
        XCTAssertNotEqual(Event.next(1), Event<Int>.next(2))
        XCTAssertEqual(Event<Int>.completed, .completed)
        XCTAssertNotEqual(Event<Int>.completed, .next(1))
        XCTAssertNotEqual(Event<Int>.completed, .error(Failure.one))
    }

    func testEquatableErrorsCompareWithTheirOwnEquality() {
        XCTAssertEqual(Event<Int>.error(Failure.one), .error(Failure.one))
        XCTAssertNotEqual(Event<Int>.error(Failure.one), .error(Failure.two))
        XCTAssertEqual(Event<Int>.error(RxError.timeout), .error(RxError.timeout))
        XCTAssertNotEqual(Event<Int>.error(RxError.timeout), .error(RxError.noElements))
    }

    func testOtherErrorsNeedTheSameTypeAndTheSameDescription() {
        XCTAssertEqual(Event<Int>.error(Described(text: "x")), .error(Described(text: "x")))
        XCTAssertNotEqual(Event<Int>.error(Described(text: "x")), .error(Described(text: "y")))
        XCTAssertNotEqual(
            Event<Int>.error(Described(text: "x")), .error(AlsoDescribed(text: "x")),
            "two error types with the same description are different errors"
        )
        XCTAssertEqual(Event<Int>.error(URLError(.timedOut)), .error(URLError(.timedOut)))
        XCTAssertNotEqual(Event<Int>.error(URLError(.timedOut)), .error(URLError(.cancelled)))
        let domain = NSError(domain: "a", code: 1)
        XCTAssertEqual(Event<Int>.error(domain), .error(NSError(domain: "a", code: 1)))
        XCTAssertNotEqual(Event<Int>.error(domain), .error(NSError(domain: "a", code: 2)))
        XCTAssertNotEqual(Event<Int>.error(domain), .error(NSError(domain: "b", code: 1)))
    }

    func testRecordedEventsCompareTimeAndValue() {
        XCTAssertEqual(Recorded.next(210, 1), Recorded.next(210, 1))
        XCTAssertNotEqual(Recorded.next(210, 1), Recorded.next(211, 1))
        XCTAssertNotEqual(Recorded<Event<Int>>.completed(300), .error(300, Failure.one))
        XCTAssertEqual(Recorded.events(.next(1, "a"), .completed(2)), [.next(1, "a"), .completed(2)])
    }

    func testTheDifferenceReportMarksEveryDifferingLine() {
        let actual: [Recorded<Event<Int>>] = [.next(210, 1), .next(220, 2), .completed(300)]
        let expected: [Recorded<Event<Int>>] = [.next(210, 1), .next(230, 2)]
        let report = describeDifference(actual, expected, what: "recorded events", message: "map")
        XCTAssertEqual(report, """
            recorded events differ at index 1 - map
                lhs             | rhs
                next(1) @ 210   | next(1) @ 210
              > next(2) @ 220   | next(2) @ 230
              > completed @ 300 | -
            """)
    }
}
