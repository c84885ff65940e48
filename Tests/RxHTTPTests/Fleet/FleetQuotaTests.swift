import Foundation
@_spi(RxNetworkKitInternals) import RxCore
@testable import RxHTTP
import XCTest

/// One replica's quota account against an engine whose leases the test holds, fails or loses:
/// no waiter is ever stranded (a waiter that arrives while tokens are being given back, a lease
/// that times out after the engine granted), the engine failing falls back to the replica's share,
/// and a lease whose answer was lost does not keep a part of the capacity.
final class FleetQuotaTests: XCTestCase {
    /// An in-memory engine running the real bucket arithmetic, whose leases can be held (until
    /// released), failed, or granted with the answer lost (a time-out after the commit).
    private final class ScriptedEngine: FleetEngine {
        enum Mode { case answer, hold, fail, loseAnswer }
        private struct State {
            var mode = Mode.answer
            var tokens = 0.0
            var at = Date().timeIntervalSince1970
            var accounts: [String: Int] = [:]
            var requests: [QuotaLeaseRequest] = []
            var held: [CheckedContinuation<Void, Never>] = []
        }
        private let state = LockedState<State>.make(State())
        let description = "scripted engine"

        init(tokens: Double) {
            state.withLock { $0.tokens = tokens }
        }

        var mode: Mode {
            get { state.withLock { $0.mode } }
            set { state.withLock { $0.mode = newValue } }
        }
        var requests: [QuotaLeaseRequest] { state.withLock { $0.requests } }
        var accounts: [String: Int] { state.withLock { $0.accounts } }
        var heldCount: Int { state.withLock { $0.held.count } }

        func release() {
            let held = state.withLock { state in defer { state.held = [] }; return state.held }
            for continuation in held { continuation.resume() }
        }

        func lease(_ request: QuotaLeaseRequest) async throws -> QuotaGrant {
            let mode = state.withLock { state -> Mode in
                state.requests.append(request)
                return state.mode
            }
            switch mode {
            case .fail:
                throw FleetError(.unavailable, "scripted failure")
            case .hold:
                await withCheckedContinuation { continuation in state.withLock { $0.held.append(continuation) } }
            case .answer, .loseAnswer:
                break
            }
            let grant = state.withLock { state in
                QuotaArithmetic.settle(
                    tokens: &state.tokens, at: &state.at, accounts: &state.accounts, request: request, now: Date().timeIntervalSince1970
                )
            }
            if mode == .loseAnswer {
                // Granted and committed; the answer never reaches the replica.
                try await Task.sleep(for: .seconds(5))
            }
            return grant
        }

        func withLock<T: Sendable>(_ name: String, wait: TimeInterval, _ body: @Sendable () async throws -> T) async throws -> T {
            try await body()
        }
        func readCredential(named name: String) async throws -> Data? { nil }
        func writeCredential(named name: String, _ data: Data?) async throws {}
        func publish(_ signal: FleetSignal) async throws {}
        func watchSignals(as member: FleetMember, _ onSignal: @escaping @Sendable (FleetSignal) -> Void) {}
        func heartbeat(_ member: FleetMember, timeout: TimeInterval) async throws -> [FleetMember] { [member] }
        func leave(_ member: FleetMember) async {}
        func close() {}
    }

    private var engine: ScriptedEngine!
    private var fleet: Fleet!

    private func makeQuota(_ limit: RateLimit, tokens: Double, operationTimeout: TimeInterval = 2) -> FleetQuota {
        engine = ScriptedEngine(tokens: tokens)
        fleet = Fleet(engine: engine, heartbeatInterval: 60, operationTimeout: operationTimeout, log: nil)
        return fleet.quota(for: "http://127.0.0.1:1", limit: limit)
    }

    override func tearDown() {
        engine?.release()
        fleet = nil
        engine = nil
        super.tearDown()
    }

    /// Waits for a token, `false` when none came within `timeout` (the test's bound, not the
    /// quota's deadline).
    private func waitForToken(_ quota: FleetQuota, timeout: TimeInterval = 2) -> Bool? {
        let answer = LockedBox<Bool?>(nil)
        let done = DispatchSemaphore(value: 0)
        let wait = quota.wait(deadline: nil) { granted in
            answer.mutate { $0 = granted }
            done.signal()
        }
        defer { wait.dispose() }
        return done.wait(timeout: .now() + timeout) == .timedOut ? nil : answer.value
    }

    func testAWaiterArrivingWhileTokensAreGivenBackIsServed() {
        // A slow refill, so that only the tokens given back make the next grant.
        let quota = makeQuota(RateLimit(requests: 10, per: 1_000, burst: 30), tokens: 30)
        XCTAssertEqual(waitForToken(quota), true)
        XCTAssertTrue(waitUntil(timeout: 2) { quota.snapshot.available > 0 && !quota.snapshot.leaseInFlight })
        // A second idle: the unspent tokens go back, and the give-back is held at the engine.
        engine.mode = .hold
        XCTAssertTrue(waitUntil(timeout: 3) { self.engine.heldCount == 1 }, "the idle tokens are being given back")
        XCTAssertEqual(engine.requests.last?.want, 0)
        XCTAssertEqual(quota.snapshot.available, 0)
        // A caller arrives now: the give-back is in flight, so it cannot ask for a lease yet.
        engine.mode = .answer
        let answer = LockedBox<Bool?>(nil)
        let wait = quota.wait(deadline: nil) { granted in answer.mutate { $0 = granted } }
        defer { wait.dispose() }
        // Its look again (a millisecond on) finds the give-back still in flight too.
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertNil(answer.value)
        engine.release()
        XCTAssertTrue(waitUntil(timeout: 2) { answer.value == true }, "served once the give-back ended: \(quota.snapshot)")
    }

    func testALeaseWhoseAnswerIsLostIsStruckOffAndStrandsNobody() {
        let quota = makeQuota(RateLimit(requests: 100, per: 1, burst: 10), tokens: 10, operationTimeout: 0.2)
        engine.mode = .loseAnswer
        let answer = LockedBox<Bool?>(nil)
        let wait = quota.wait(deadline: nil) { granted in answer.mutate { $0 = granted } }
        defer { wait.dispose() }
        XCTAssertTrue(waitUntil(timeout: 2) { quota.isFallingBack }, "the lease timed out: the replica paces itself")
        XCTAssertTrue(waitUntil(timeout: 2) { answer.value == true }, "the waiter is served at the replica's share meanwhile")
        XCTAssertEqual(engine.accounts.values.reduce(0, +), engine.requests.first?.want, "the engine granted, the replica never knew")
        engine.mode = .answer
        XCTAssertTrue(waitUntil(timeout: 3) { !quota.isFallingBack }, "the engine answers again: back on the fleet's quota")
        let member = fleet.member.id
        XCTAssertTrue(
            waitUntil(timeout: 2) { !quota.snapshot.leaseInFlight && self.engine.accounts[member] ?? 0 == quota.snapshot.available },
            "the lost grant was struck off: the account is what the replica holds (\(self.engine.accounts), \(quota.snapshot))"
        )
    }

    func testAFailingEngineFallsBackToTheShareAndRejoins() {
        let quota = makeQuota(RateLimit(requests: 20, per: 1, burst: 4), tokens: 4)
        engine.mode = .fail
        var served = 0
        let start = Date()
        while Date().timeIntervalSince(start) < 0.5 {
            if waitForToken(quota, timeout: 1) == true { served += 1 }
        }
        XCTAssertTrue(quota.isFallingBack)
        // One member: its share is the whole limit, 4 at once then 20 a second.
        XCTAssertGreaterThanOrEqual(served, 5)
        XCTAssertLessThanOrEqual(served, 4 + 20 / 2 + 2, "paced at the share, not unbounded")
        engine.mode = .answer
        XCTAssertTrue(waitUntil(timeout: 3) { !quota.isFallingBack }, "asked again every second: rejoined")
        XCTAssertEqual(waitForToken(quota), true)
    }
}
