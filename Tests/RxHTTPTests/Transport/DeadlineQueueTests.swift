import Foundation
@testable import RxHTTP
import XCTest

final class DeadlineQueueTests: XCTestCase {
    // @unchecked Sendable: `fired` is only touched on the serial `queue` of the test.
    private final class Target: DeadlineExpiring, @unchecked Sendable {
        let name: String
        let log: Log
        init(_ name: String, log: Log) {
            self.name = name
            self.log = log
        }
        func deadlinePassed() {
            log.names.append(name)
            log.expectation.fulfill()
        }
    }

    // @unchecked Sendable: `names` is only touched on the serial queue of the test.
    private final class Log: @unchecked Sendable {
        var names: [String] = []
        let expectation: XCTestExpectation
        init(_ expectation: XCTestExpectation) {
            self.expectation = expectation
        }
    }

    func testDeadlinesFireInOrderAndRemovedOnesNever() {
        let queue = DispatchQueue(label: "DeadlineQueueTests")
        let deadlines = DeadlineQueue(queue: queue)
        let done = expectation(description: "deadlines")
        done.expectedFulfillmentCount = 4
        let log = Log(done)
        // Added out of order; "c" and "e" are removed before they pass, "e" while earliest.
        let delays: [(String, Double)] = [("d", 0.20), ("b", 0.10), ("c", 0.15), ("a", 0.05), ("e", 0.02), ("f", 0.25)]
        var tokens: [String: DeadlineQueue.Token] = [:]
        for (name, delay) in delays {
            tokens[name] = deadlines.add(after: delay, target: Target(name, log: log))
        }
        deadlines.remove(tokens["c"]!)
        deadlines.remove(tokens["e"]!)
        deadlines.remove(tokens["e"]!)
        wait(for: [done], timeout: 5)
        let names = queue.sync { log.names }
        XCTAssertEqual(names, ["a", "b", "d", "f"])
    }

    func testAnEarlierDeadlineAddedLaterFiresFirst() {
        let queue = DispatchQueue(label: "DeadlineQueueTests")
        let deadlines = DeadlineQueue(queue: queue)
        let done = expectation(description: "deadlines")
        done.expectedFulfillmentCount = 2
        let log = Log(done)
        let start = Date()
        _ = deadlines.add(after: 10, target: Target("late", log: log))
        _ = deadlines.add(after: 0.05, target: Target("early", log: log))
        let more = expectation(description: "second")
        _ = deadlines.add(after: 0.1, target: Target("next", log: Log(more)))
        wait(for: [more], timeout: 5)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(queue.sync { log.names }, ["early"])
        done.fulfill()
        wait(for: [done], timeout: 1)
    }
}
