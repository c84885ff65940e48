import Foundation
@testable import RxHTTP
import XCTest

/// `ProgressThrottle`, which decides what a download's and an upload's progress says: monotone, at
/// most every 64 KiB or 100 ms, the last value always and never the same value twice.
final class ProgressThrottleTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000)

    func testTheEndIsNotRepeatedWhenTheLastChunkReportedIt() {
        var throttle = ProgressThrottle()
        XCTAssertEqual(throttle.next(1_000, expected: 2_000, now: start)?.bytes, 1_000)
        // The last chunk, 100 ms later: reported by the chunk, not again by the end.
        XCTAssertEqual(throttle.next(2_000, expected: 2_000, now: start.addingTimeInterval(0.1)), TransferProgress(bytes: 2_000, expectedBytes: 2_000))
        XCTAssertNil(throttle.last(2_000, expected: 2_000))
    }

    func testTheEndIsReportedWhenTheLastChunkWasNot() {
        var throttle = ProgressThrottle()
        XCTAssertNotNil(throttle.next(1_000, expected: 2_000, now: start))
        XCTAssertNil(throttle.next(2_000, expected: 2_000, now: start.addingTimeInterval(0.01)), "too soon, too little")
        XCTAssertEqual(throttle.last(2_000, expected: 2_000), TransferProgress(bytes: 2_000, expectedBytes: 2_000))
    }

    func testAnEndThatLearnsTheSizeIsANewValue() {
        var throttle = ProgressThrottle()
        XCTAssertEqual(throttle.next(70_000, expected: nil, now: start), TransferProgress(bytes: 70_000, expectedBytes: nil))
        // A body of unknown length: the end says how long it was.
        XCTAssertEqual(throttle.last(70_000, expected: 70_000), TransferProgress(bytes: 70_000, expectedBytes: 70_000))
    }

    func testAStartOverSaysNothingUntilItPassesWhatWasReported() {
        var throttle = ProgressThrottle()
        XCTAssertNotNil(throttle.next(100_000, expected: 200_000, now: start))
        XCTAssertNil(throttle.next(80_000, expected: 200_000, now: start.addingTimeInterval(1)))
        XCTAssertNil(throttle.next(100_000, expected: 200_000, now: start.addingTimeInterval(2)))
        XCTAssertEqual(throttle.next(100_001, expected: 200_000, now: start.addingTimeInterval(3))?.bytes, 100_001)
    }
}
