import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// `HostGate` on its own, in virtual time: no client, no transport. Admission at once, after a
/// cooldown or a place in the queue; refusals; slots handed back; the breaker's states.
final class HostGateTests: XCTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    private let origin = Origin(URL(string: "https://gate.test")!)
    private let changes = LockedBox<[CircuitState]>([])

    private func gate(_ protection: HostProtection) -> HostGate {
        HostGate(origin: origin, protection: protection, reachability: nil) { [changes] _, state in
            changes.mutate { $0.append(state) }
        }
    }

    /// Asks for admission and records the answer with its tick.
    private func admit(_ gate: HostGate, into answers: LockedBox<[(TestTime, String, HostGate.Slot?)]>, deadlineAt: Date? = nil) -> Disposable {
        gate.admit(bypassesQueue: false, deadlineAt: deadlineAt, scheduler: scheduler) { [scheduler] admission in
            switch admission {
            case .granted(let slot): answers.mutate { $0.append((scheduler.clock, "granted", slot)) }
            case .refused(let error): answers.mutate { $0.append((scheduler.clock, error.code.rawValue, nil)) }
            }
        }
    }

    func testWithoutLimitsEverySendIsAdmittedAtOnce() {
        let gate = gate(.none)
        let answers = LockedBox<[(TestTime, String, HostGate.Slot?)]>([])
        for _ in 0..<3 { _ = admit(gate, into: answers) }
        XCTAssertEqual(answers.mutate { $0.map(\.1) }, ["granted", "granted", "granted"])
        XCTAssertEqual(gate.load.inFlight, 0, "no limit: no slot is counted")
    }

    func testTheQueueHandsSlotsOnInOrderAndIsBounded() {
        let gate = gate(HostProtection(maxConcurrentRequests: 1, maxQueuedRequests: 1))
        let answers = LockedBox<[(TestTime, String, HostGate.Slot?)]>([])
        _ = admit(gate, into: answers)
        _ = admit(gate, into: answers)
        _ = admit(gate, into: answers)
        XCTAssertEqual(answers.mutate { $0.map(\.1) }, ["granted", "rejected"], "one in flight, one queued, one refused")
        XCTAssertEqual(gate.load.inFlight, 1)
        XCTAssertEqual(gate.load.queued, 1)
        guard let slot = answers.mutate({ $0[0].2 }) else { return XCTFail() }
        gate.release(slot, outcome: .success, now: scheduler.now)
        XCTAssertEqual(answers.mutate { $0.map(\.1) }, ["granted", "rejected", "granted"])
        XCTAssertEqual(gate.load.inFlight, 1)
        XCTAssertEqual(gate.load.queued, 0)
    }

    func testLeavingTheQueueGivesThePlaceUp() {
        let gate = gate(HostProtection(maxConcurrentRequests: 1))
        let answers = LockedBox<[(TestTime, String, HostGate.Slot?)]>([])
        _ = admit(gate, into: answers)
        let waiting = admit(gate, into: answers)
        waiting.dispose()
        XCTAssertEqual(gate.load.queued, 0)
        guard let slot = answers.mutate({ $0[0].2 }) else { return XCTFail() }
        gate.release(slot, outcome: .ignored, now: scheduler.now)
        XCTAssertEqual(answers.mutate { $0.count }, 1, "nothing delivered to a waiter that left")
        XCTAssertEqual(gate.load.inFlight, 0, "the slot was not handed to nobody")
    }

    func testACooldownHoldsAdmissionsUntilItEndsOrRefusesThoseWhoseDeadlineIsSooner() {
        let gate = gate(HostProtection())
        gate.noteRetryAfter(HTTPClientError(.unacceptableStatusCode, statusCode: 429, headers: ["Retry-After": "10"]), cap: 120, now: scheduler.now)
        let answers = LockedBox<[(TestTime, String, HostGate.Slot?)]>([])
        _ = admit(gate, into: answers)
        _ = admit(gate, into: answers, deadlineAt: scheduler.now.addingTimeInterval(5))
        XCTAssertEqual(answers.mutate { $0.map(\.1) }, ["unacceptableStatusCode"], "the deadline ends before the cooldown")
        scheduler.start()
        XCTAssertEqual(answers.mutate { $0.map { "\($0.0) \($0.1)" } }, ["0 unacceptableStatusCode", "10 granted"])
    }

    func testTheBreakerOpensOnFailuresGoesHalfOpenAfterItsBreakAndClosesOnATrialSuccess() {
        let gate = gate(HostProtection(circuitBreaker: CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 2, window: 30, breakDuration: 5)))
        let answers = LockedBox<[(TestTime, String, HostGate.Slot?)]>([])
        for _ in 0..<2 {
            _ = admit(gate, into: answers)
            guard let slot = answers.mutate({ $0.last?.2 }) else { return XCTFail() }
            gate.release(slot, outcome: .failure, now: scheduler.now)
        }
        let openUntil = scheduler.now.addingTimeInterval(5)
        XCTAssertEqual(gate.circuitState(now: scheduler.now), .open(until: openUntil))
        _ = admit(gate, into: answers)
        XCTAssertEqual(answers.mutate { $0.last?.1 }, "circuitOpen")
        scheduler.advanceTo(5)
        _ = admit(gate, into: answers)
        guard let trial = answers.mutate({ $0.last?.2 }), trial.isTrial else { return XCTFail("no trial after the break") }
        _ = admit(gate, into: answers)
        XCTAssertEqual(answers.mutate { $0.last?.1 }, "circuitOpen", "one trial at a time")
        gate.release(trial, outcome: .success, now: scheduler.now)
        XCTAssertEqual(gate.circuitState(now: scheduler.now), .closed)
        XCTAssertEqual(changes.value, [.open(until: openUntil), .halfOpen, .closed])
    }

    func testTheBudgetPaysRetriesFromFirstAttempts() {
        let gate = gate(HostProtection(retryBudget: RetryBudget(ratio: 0.5, minRetriesPerSecond: 0, window: 10)))
        for _ in 0..<4 { gate.depositFirstAttempt(now: scheduler.now) }
        XCTAssertTrue(gate.withdrawRetry(now: scheduler.now))
        XCTAssertTrue(gate.withdrawRetry(now: scheduler.now))
        XCTAssertFalse(gate.withdrawRetry(now: scheduler.now), "two retries for four first attempts at 0.5")
    }
}
