import Foundation
import Synchronization
import RxNetworkKit

/// Accounts for every call the daemon soak makes to its API: each one ends in a success whose
/// answer is right, or in an error the moment explains (`DaemonTimeline.unexplained`); anything
/// else is counted as unexpected and fails the run. Orders are remembered (order number → the key
/// the client saw applied) for the end, when the API's journal says what it applied.
///
/// Aggregates only, apart from calls still open and the orders, which are kept as numbers and
/// UUIDs (about 30 bytes each: ~100 KiB for an hour) so that the soak's own bookkeeping does not
/// show as the daemon's growth.
///
/// - Note: Thread-safe; calls end on the client's callback queue.
final class DaemonLedger: Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case item = "GET /items/{id} (cache, ETag)"
        case feed = "GET /feed, 4 at once (coalescing)"
        case order = "POST /orders (Idempotency-Key)"
        case afterShutdown = "GET after SIGTERM"
    }

    struct Tally: Sendable {
        var calls = 0
        var succeeded = 0
        /// Failures by code (and status).
        var failures: [String: Int] = [:]
        var unexpected = 0
    }

    private struct OpenCall {
        let kind: Kind
        let start: Date
        let burst: Int?
    }

    private struct Burst {
        var pending: Int
        var served: Set<String> = []
    }

    private struct State {
        var nextID = 0
        var open: [Int: OpenCall] = [:]
        var tallies: [Kind: Tally] = [:]
        var unexpectedSamples: [String] = []
        /// Orders the client saw succeed, by number, with the key the API said it applied.
        var succeededOrders: [Int: UUID] = [:]
        var failedOrders: Set<Int> = []
        var replayedReceipts = 0
        var cacheStatuses: [String: Int] = [:]
        var bursts: [Int: Burst] = [:]
        var nextBurst = 0
        /// Bursts of identical feed calls, by how many exchanges served them.
        var exchangesPerBurst: [Int: Int] = [:]
    }

    let timeline: DaemonTimeline
    let secrets: SecretWatch
    private let state = Mutex(State())

    init(timeline: DaemonTimeline, secrets: SecretWatch) {
        self.timeline = timeline
        self.secrets = secrets
    }

    // MARK: Calls

    /// A new burst of `size` identical feed calls.
    func beginBurst(size: Int) -> Int {
        state.withLock { state in
            state.nextBurst += 1
            state.bursts[state.nextBurst] = Burst(pending: size)
            return state.nextBurst
        }
    }

    /// A call starts; returns its id.
    func begin(_ kind: Kind, burst: Int? = nil, at date: Date = Date()) -> Int {
        state.withLock { state in
            state.nextID += 1
            state.open[state.nextID] = OpenCall(kind: kind, start: date, burst: burst)
            state.tallies[kind, default: Tally()].calls += 1
            return state.nextID
        }
    }

    /// An item arrived: it must be the one asked for, and no older than its freshness allows.
    func item(_ id: Int, asked: Int, _ response: DecodedResponse<SoakItem>) {
        let now = Date()
        let start = state.withLock { $0.open[id]?.start } ?? now
        let schedule = timeline.schedule
        // A stored answer may be `max-age` old, and was built up to a second before it was stored.
        let oldest = schedule.itemVersion(at: start.addingTimeInterval(-Double(DaemonSchedule.itemMaxAge) - 1))
        let newest = schedule.itemVersion(at: now.addingTimeInterval(DaemonTimeline.margin))
        var problem: String?
        if response.value.id != asked {
            problem = "asked for item \(asked), got \(response.value.id)"
        } else if !(oldest...newest).contains(response.value.version) {
            problem = "item \(asked) version \(response.value.version) (\(response.cacheStatus)) outside \(oldest)...\(newest)"
        }
        state.withLock { $0.cacheStatuses[response.cacheStatus.rawValue, default: 0] += 1 }
        finish(id, problem: problem)
    }

    func feed(_ id: Int, _ feed: SoakFeed) {
        state.withLock { state in
            guard let burst = state.open[id]?.burst else { return }
            state.bursts[burst]?.served.insert(feed.served)
        }
        finish(id, problem: nil)
    }

    /// The name the API knows order `number` by.
    static func orderName(_ number: Int) -> String { "o-\(number)" }

    func order(_ id: Int, number: Int, _ receipt: OrderReceipt) {
        let problem = state.withLock { state -> String? in
            let order = Self.orderName(number)
            guard receipt.order == order else { return "order \(order) answered as \(receipt.order)" }
            guard let key = UUID(uuidString: receipt.key) else { return "order \(order) applied under a key that is no UUID: \(receipt.key)" }
            if let earlier = state.succeededOrders[number] { return "order \(order) succeeded twice (keys \(earlier), \(receipt.key))" }
            state.succeededOrders[number] = key
            if receipt.replayed { state.replayedReceipts += 1 }
            return nil
        }
        finish(id, problem: problem)
    }

    /// A call succeeded with nothing to check (which, after SIGTERM, is a problem).
    func succeeded(_ id: Int) {
        let kind = state.withLock { $0.open[id]?.kind }
        finish(id, problem: kind == .afterShutdown ? "a call made after SIGTERM succeeded" : nil)
    }

    /// A call failed.
    func failed(_ id: Int, _ error: Error, order: Int? = nil) {
        let now = Date()
        guard let call = state.withLock({ $0.open[id] }) else { return }
        if let order {
            state.withLock { _ = $0.failedOrders.insert(order) }
        }
        guard let error = error as? HTTPClientError else {
            finish(id, problem: "untyped error \(type(of: error))", failure: "untyped \(type(of: error))")
            return
        }
        let label = error.code.rawValue + (error.statusCode.map { " \($0)" } ?? "")
        if secrets.check(String(describing: error), context: "an error's description") {
            finish(id, problem: "a secret in an error's description (\(error.code))", failure: label)
            return
        }
        if call.kind == .afterShutdown {
            finish(id, problem: error.code == .shutdown && error.phase == .notSent ? nil : "after SIGTERM: \(error)", failure: label)
            return
        }
        guard timeline.unexplained(error, from: call.start, to: now) != nil else {
            finish(id, problem: nil, failure: label)
            return
        }
        // What explains it may not be on the timeline yet: the breaker's change comes through the
        // client's events, the kill is noted by another thread. Judge again a second later.
        DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [self] in
            finish(id, problem: timeline.unexplained(error, from: call.start, to: now), failure: label)
        }
    }

    private func finish(_ id: Int, problem: String?, failure: String? = nil) {
        state.withLock { state in
            guard let call = state.open.removeValue(forKey: id) else { return }
            var tally = state.tallies[call.kind, default: Tally()]
            if let failure {
                tally.failures[failure, default: 0] += 1
            } else {
                tally.succeeded += 1
            }
            if let problem {
                tally.unexpected += 1
                if state.unexpectedSamples.count < 20 { state.unexpectedSamples.append("\(call.kind.rawValue): \(problem)") }
            }
            state.tallies[call.kind] = tally
            if let burstID = call.burst, var burst = state.bursts[burstID] {
                burst.pending -= 1
                if burst.pending == 0 {
                    state.bursts[burstID] = nil
                    if !burst.served.isEmpty { state.exchangesPerBurst[burst.served.count, default: 0] += 1 }
                } else {
                    state.bursts[burstID] = burst
                }
            }
        }
    }

    // MARK: Reading

    /// Calls that have not ended yet.
    var openCount: Int {
        state.withLock { $0.open.count }
    }

    struct Snapshot: Sendable {
        var tallies: [Kind: Tally]
        var unexpectedSamples: [String]
        var succeededOrders: [Int: UUID]
        var failedOrders: Set<Int>
        var replayedReceipts: Int
        var cacheStatuses: [String: Int]
        var exchangesPerBurst: [Int: Int]
        var open: Int

        var calls: Int { tallies.values.reduce(0) { $0 + $1.calls } }
        var unexpected: Int { tallies.values.reduce(0) { $0 + $1.unexpected } }
    }

    var snapshot: Snapshot {
        state.withLock { state in
            Snapshot(
                tallies: state.tallies, unexpectedSamples: state.unexpectedSamples, succeededOrders: state.succeededOrders,
                failedOrders: state.failedOrders, replayedReceipts: state.replayedReceipts, cacheStatuses: state.cacheStatuses,
                exchangesPerBurst: state.exchangesPerBurst, open: state.open.count
            )
        }
    }
}
