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

    private let client: HTTPClient
    private let target: any HostileTarget
    private let state = Mutex(State())

    init(client: HTTPClient, target: any HostileTarget) {
        self.client = client
        self.target = target
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
            let results = HostileRounds.round(client: client, target: target)
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
