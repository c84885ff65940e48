import Foundation
import RxCore

/// What a `LoopbackHTTPServer` has seen: every parsed request in arrival order, and how many
/// connections it accepted. It outlives stop and restart; `reset()` empties it.
///
/// - Note: Thread-safe.
final class LoopbackRequestLog: Sendable {
    private struct State {
        var requests: [LoopbackHTTPRequest] = []
        var acceptedConnections = 0
    }

    private let state = LockedState.make(State())

    /// Records a request.
    func append(_ request: LoopbackHTTPRequest) {
        state.withLock { $0.requests.append(request) }
    }

    /// Counts an accepted connection and returns its number (from 1, never reused).
    func recordAcceptedConnection() -> Int {
        state.withLock { state in
            state.acceptedConnections += 1
            return state.acceptedConnections
        }
    }

    /// The requests so far, oldest first.
    var requests: [LoopbackHTTPRequest] {
        state.withLock { $0.requests }
    }

    /// How many connections were accepted since the server was created.
    var acceptedConnections: Int {
        state.withLock { $0.acceptedConnections }
    }

    /// Forgets the requests recorded so far.
    func reset() {
        state.withLock { $0.requests.removeAll() }
    }

    /// Blocks until at least `count` requests are recorded or `timeout` seconds pass, then returns the
    /// requests recorded by then.
    func waitForRequests(count: Int, timeout: TimeInterval) -> [LoopbackHTTPRequest] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let requests = self.requests
            if requests.count >= count || Date() >= deadline { return requests }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}
