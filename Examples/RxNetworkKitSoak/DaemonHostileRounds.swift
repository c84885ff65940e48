import Foundation
import Synchronization
import RxNetworkKit

/// The hostile rounds inside the daemon soak: every case of `HostileRounds` on the soak's
/// long-lived client, against the hostile server's child process, on a thread of their own while
/// the daemon's load goes on.
///
/// - Note: Thread-safe.
final class DaemonHostileRounds: Sendable {
    struct Snapshot: Sendable {
        var rounds = 0
        var cases = 0
        var outcomes: [String: [String: Int]] = [:]
        var unexpected = 0
        var longestRound: TimeInterval = 0
        /// Wall time inside rounds, and the whole process's CPU time over it (the load goes on
        /// meanwhile): what the report takes out to show the daemon's own CPU per call.
        var seconds: TimeInterval = 0
        var cpuSeconds: Double = 0
    }

    private struct State {
        var running = false
        var snapshot = Snapshot()
    }

    /// The pause between two cases: the client's breaker sees fewer than its `minimumRequests` (10)
    /// in any 10 s window, so that most cases reach the hostile server rather than an open circuit.
    static let pause: TimeInterval = 1.2

    private let client: HTTPClient
    private let target: any HostileTarget
    private let timeline: DaemonTimeline
    private let state = Mutex(State())

    init(client: HTTPClient, target: any HostileTarget, timeline: DaemonTimeline) {
        self.client = client
        self.target = target
        self.timeline = timeline
    }

    /// Starts a round, unless one is still running.
    func startRound() {
        guard state.withLock({ state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }) else { return }
        let thread = Thread { [self] in
            let start = Date()
            let cpuBefore = DaemonSoak.cpuSeconds()
            // A case the client refused because its breaker had opened for the hostile host (whose
            // every answer is a failure) got the protection's typed answer, expected for that moment.
            var results: [(name: String, outcome: String)] = []
            for (index, hostileCase) in HostileRounds.everyCase().enumerated() {
                if index > 0 { Thread.sleep(forTimeInterval: Self.pause) }
                let outcome = hostileCase.run(client, target)
                let refused = outcome == "UNEXPECTED circuitOpen" && timeline.circuitOpened(for: target.baseURL, since: start)
                results.append((hostileCase.name, refused ? "circuitOpen (the host's circuit had opened)" : outcome))
            }
            let duration = Date().timeIntervalSince(start)
            let cpu = DaemonSoak.cpuSeconds() - cpuBefore
            state.withLock { state in
                state.running = false
                state.snapshot.rounds += 1
                state.snapshot.seconds += duration
                state.snapshot.cpuSeconds += cpu
                state.snapshot.longestRound = max(state.snapshot.longestRound, duration)
                for (name, outcome) in results {
                    state.snapshot.cases += 1
                    state.snapshot.outcomes[name, default: [:]][outcome, default: 0] += 1
                    if outcome.hasPrefix("UNEXPECTED") { state.snapshot.unexpected += 1 }
                }
            }
        }
        thread.name = "soak.hostile"
        thread.start()
    }

    /// Waits until no round runs (at most `timeout` seconds).
    func waitForRound(timeout: TimeInterval) {
        let deadline = Date().addingTimeInterval(timeout)
        while state.withLock({ $0.running }) && Date() < deadline { usleep(50_000) }
    }

    var snapshot: Snapshot {
        state.withLock { $0.snapshot }
    }
}
