import RxCore
import RxTesting
import XCTest

final class DelayOptionsTests: XCTestCase {
    func testImmediateAndConstantDelaysKeepFractions() {
        XCTAssertEqual(DelayOptions.immediate.make(1), 0)
        XCTAssertEqual(DelayOptions.immediate.make(7), 0)
        XCTAssertEqual(DelayOptions.constant(time: 0.5).make(1), 0.5)
        XCTAssertEqual(DelayOptions.constant(time: 0.5).make(9), 0.5)
    }

    func testExponentialIsInitialTimesMultiplierToTheAttemptMinusOneCapped() {
        let options = DelayOptions.exponential(initial: 0.5, multiplier: 2, maxDelay: 30)
        XCTAssertEqual((1...8).map(options.make), [0.5, 1, 2, 4, 8, 16, 30, 30])
        XCTAssertEqual(options.make(10_000), 30, "overflow to infinity is capped")
    }

    func testCustomReceivesTheOneBasedAttempt() {
        let options = DelayOptions.custom { Double($0) * 0.25 }
        XCTAssertEqual(options.make(1), 0.25)
        XCTAssertEqual(options.make(4), 1.0)
    }

    func testNegativeAndNaNDelaysBecomeZeroAndAttemptsBelowOneCountAsOne() {
        XCTAssertEqual(DelayOptions.constant(time: -3).make(1), 0)
        XCTAssertEqual(DelayOptions.custom { _ in .nan }.make(1), 0)
        XCTAssertEqual(DelayOptions.exponential(initial: 1, multiplier: 2, maxDelay: 10).make(0), 1)
        XCTAssertEqual(DelayOptions.constant(time: .infinity).make(1), .infinity)
    }

    func testFullAndEqualJitterFollowTheirDefinitions() {
        let half = RandomSource.sequence([0.5])
        XCTAssertEqual(Jitter.none.apply(to: 8, random: half), 8)
        XCTAssertEqual(Jitter.full.apply(to: 8, random: half), 4)
        XCTAssertEqual(Jitter.equal.apply(to: 8, random: half), 6)
        XCTAssertEqual(Jitter.full.apply(to: 8, random: .sequence([0])), 0)
        XCTAssertEqual(Jitter.equal.apply(to: 8, random: .sequence([0])), 4)
        XCTAssertEqual(Jitter.full.apply(to: .infinity, random: half), .infinity)
    }

    func testJitteredDelaysStayWithinTheirBounds() {
        let options = DelayOptions.exponential(initial: 1, multiplier: 2, maxDelay: 16)
        let full = options.jittered(.full, random: .seeded(42))
        let equal = options.jittered(.equal, random: .seeded(42))
        for attempt in 1...200 {
            let base = options.make(attempt)
            XCTAssertTrue((0...base).contains(full.make(attempt)))
            XCTAssertTrue((base / 2...base).contains(equal.make(attempt)))
        }
    }

    func testSeededSourcesAreReproducibleAndSeedsDiffer() {
        let first = RandomSource.seeded(7)
        let second = RandomSource.seeded(7)
        let other = RandomSource.seeded(8)
        let a = (0..<20).map { _ in first.nextUnitInterval() }
        let b = (0..<20).map { _ in second.nextUnitInterval() }
        let c = (0..<20).map { _ in other.nextUnitInterval() }
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertTrue(a.allSatisfy { (0..<1).contains($0) })
    }
}
