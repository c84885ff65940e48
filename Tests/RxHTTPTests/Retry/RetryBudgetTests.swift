import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// The per-host retry budget in virtual time: how much extra load retries may add.
final class RetryBudgetTests: VirtualTimeClientTestCase {
    func testTheRetryBudgetBoundsTheExtraLoadOfATotalOutage() {
        stub.stub(path: "/x", with: .status(503))
        let budget = RetryBudget(ratio: 0.2, minRetriesPerSecond: 0, window: 60)
        let client = client(HostProtection(retryBudget: budget), policy: RetryPolicy(maxAttempts: 5, delay: .constant(time: 1)))
        let outcomes = LockedBox([(TestTime, String)]())
        for index in 0..<100 {
            call(client.rx.request(RawText(path: "/x")), at: 200 + TestTime(index / 10), into: outcomes)
        }
        scheduler.start()
        let ratio = Double(sends("/x")) / 100
        print("retry budget under a 100% outage: \(sends("/x")) requests sent for 100 asked (\(ratio)×; without a budget 500)")
        XCTAssertLessThanOrEqual(ratio, 1.21)
        XCTAssertGreaterThanOrEqual(ratio, 1.19)
        XCTAssertEqual(outcomes.value.count, 100)
        // The 20 retries the budget paid for failed too, and their next retry found it empty.
        XCTAssertEqual(outcomes.value.filter { $0.1 == "retryBudgetExhausted" }.count, 100)
    }

    func testTheBudgetRefillsAsTheWindowSlides() {
        script("/x", [.status(503), .status(503), .status(200, body: Data("ok".utf8))])
        let budget = RetryBudget(ratio: 0, minRetriesPerSecond: 0.1, window: 10)   // one retry per 10 s
        let client = client(HostProtection(retryBudget: budget), policy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 1)))
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 200, into: outcomes)
        scheduler.start()
        XCTAssertEqual(outcomes.value.map(\.1), ["retryBudgetExhausted"])
        let later = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 220, into: later)
        scheduler.start()
        XCTAssertEqual(later.value.map(\.1), ["ok"])
    }
}
