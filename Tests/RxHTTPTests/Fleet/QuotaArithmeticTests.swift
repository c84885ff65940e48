import Foundation
@testable import RxHTTP
import XCTest

/// The shared token bucket's arithmetic, which both engines run: settling, refilling, the cap that
/// counts every lease out, giving back — and, over a simulated minute of replicas leasing and
/// spending at random, the bound the fleet promises (the limit plus its burst).
final class QuotaArithmeticTests: XCTestCase {
    private struct Bucket {
        var tokens: Double
        var at: TimeInterval = 0
        var accounts: [String: Int] = [:]

        mutating func lease(_ member: String, holding: Int = 0, returned: Int = 0, want: Int, now: TimeInterval, rate: Double = 10, capacity: Double = 5) -> QuotaGrant {
            let request = QuotaLeaseRequest(bucket: "b", rate: rate, capacity: capacity, member: member, holding: holding, returned: returned, want: want)
            return QuotaArithmetic.settle(tokens: &tokens, at: &at, accounts: &accounts, request: request, now: now)
        }
    }

    func testAFullBucketGrantsUpToItsCapacityThenSaysWhenTheNextTokenComes() {
        var bucket = Bucket(tokens: 5)
        XCTAssertEqual(bucket.lease("a", want: 3, now: 0).granted, 3)
        let second = bucket.lease("b", want: 3, now: 0)
        XCTAssertEqual(second.granted, 2)
        XCTAssertEqual(bucket.accounts, ["a": 3, "b": 2])
        XCTAssertEqual(second.nextTokenIn ?? 0, 0.05, accuracy: 1e-9, "the leases out fill the capacity: look again shortly")
    }

    func testLeasesOutCapTheRefillUntilTheyAreSettled() {
        var bucket = Bucket(tokens: 5)
        XCTAssertEqual(bucket.lease("a", want: 5, now: 0).granted, 5)
        XCTAssertEqual(bucket.lease("b", want: 5, now: 10).granted, 0, "ten seconds later, a's unspent lease still fills the capacity")
        XCTAssertEqual(bucket.lease("a", holding: 0, want: 0, now: 10).granted, 0)
        XCTAssertEqual(bucket.lease("b", want: 5, now: 10.5).granted, 5, "spent: the bucket refills at the rate, up to the capacity")
    }

    func testGivenBackTokensReturnToTheBucket() {
        var bucket = Bucket(tokens: 5)
        _ = bucket.lease("a", want: 4, now: 0)
        XCTAssertEqual(bucket.lease("a", holding: 0, returned: 3, want: 0, now: 0).granted, 0)
        XCTAssertEqual(bucket.tokens, 4, accuracy: 1e-9, "1 left plus 3 given back")
        XCTAssertNil(bucket.accounts["a"])
    }

    /// A grant whose answer never arrived (a time-out after the commit) is struck off by the
    /// replica's next lease, which says what it really holds: it does not hold a part of the
    /// capacity for as long as the replica lives.
    func testALostGrantIsStruckOffByTheNextLease() {
        var bucket = Bucket(tokens: 5)
        XCTAssertEqual(bucket.lease("a", want: 5, now: 0).granted, 5, "granted, and the answer is lost")
        XCTAssertEqual(bucket.lease("b", want: 5, now: 10).granted, 0, "the lost grant still counts as held")
        XCTAssertEqual(bucket.lease("a", holding: 0, want: 2, now: 10.5).granted, 2, "a holds nothing, says so, and is granted")
        XCTAssertEqual(bucket.accounts["a"], 2)
        XCTAssertEqual(bucket.lease("b", want: 5, now: 10.5).granted, 3, "the capacity less a's real lease")
    }

    func testAHoldingAboveTheCapacityOrBelowZeroIsClamped() {
        var bucket = Bucket(tokens: 5)
        _ = bucket.lease("a", holding: .max, want: 0, now: 0)
        XCTAssertEqual(bucket.accounts["a"], 5)
        _ = bucket.lease("a", holding: -3, want: 0, now: 0)
        XCTAssertNil(bucket.accounts["a"])
    }

    func testANaNOrNegativeClockNeverGrantsMore() {
        var bucket = Bucket(tokens: 0, at: 100)
        XCTAssertEqual(bucket.lease("a", want: 5, now: 50).granted, 0, "a clock that went back refills nothing")
    }

    /// Four replicas lease in batches of 2 and spend at random for a simulated minute; in every
    /// one-second window the sends stay within rate × 1 s + burst.
    func testRandomReplicasStayWithinTheLimitPlusBurst() {
        var generator = SplitMix(seed: 7)
        let rate = 50.0, capacity = 5.0
        var bucket = Bucket(tokens: capacity)
        var held = [Int](repeating: 0, count: 4)
        var sends: [TimeInterval] = []
        var now = 0.0
        while now < 60 {
            now += Double(generator.next() % 1_000) / 1_000_000 * 4
            let member = Int(generator.next() % 4)
            if held[member] > 0 {
                held[member] -= 1
                sends.append(now)
            } else {
                let grant = bucket.lease("m\(member)", holding: held[member], want: 2, now: now, rate: rate, capacity: capacity)
                held[member] += grant.granted
            }
        }
        var start = 0
        for (index, time) in sends.enumerated() {
            while sends[start] < time - 1 { start += 1 }
            XCTAssertLessThanOrEqual(index - start + 1, Int(rate + capacity), "window ending at \(time)")
        }
        XCTAssertGreaterThan(Double(sends.count), rate * 60 * 0.8, "the bound does not starve the fleet")
    }
}

/// A small deterministic generator for the simulation.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
