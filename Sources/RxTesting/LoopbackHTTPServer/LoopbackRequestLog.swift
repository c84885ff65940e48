import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// What a `LoopbackHTTPServer` has seen: the most recent `limit` parsed requests in arrival order,
/// and how many connections it accepted. It outlives stop and restart; `reset()` empties it.
///
/// - Note: Thread-safe.
final class LoopbackRequestLog: Sendable {
    private struct State {
        var requests: [LoopbackHTTPRequest] = []
        var acceptedConnections = 0
        /// The messages WebSocket clients sent, by path, in arrival order (at most `limit` each).
        var webSocketMessages: [String: [LoopbackWebSocketMessage]] = [:]
    }

    /// How many requests are kept; older ones are dropped so that a long-running server stays small.
    let limit: Int
    private let state = LockedState.make(State())

    /// Creates an empty log keeping at most `limit` requests.
    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Records a request (dropping the oldest ones beyond the limit, a batch at a time).
    func append(_ request: LoopbackHTTPRequest) {
        let limit = self.limit
        state.withLock { state in
            state.requests.append(request)
            if state.requests.count > limit + max(1, limit / 8) {
                state.requests.removeFirst(state.requests.count - limit)
            }
        }
    }

    /// Counts an accepted connection and returns its number (from 1, never reused).
    func recordAcceptedConnection() -> Int {
        state.withLock { state in
            state.acceptedConnections += 1
            return state.acceptedConnections
        }
    }

    /// The most recent `limit` requests, oldest first.
    var requests: [LoopbackHTTPRequest] {
        let limit = self.limit
        return state.withLock { state in
            state.requests.count > limit ? Array(state.requests.suffix(limit)) : state.requests
        }
    }

    /// How many connections were accepted since the server was created.
    var acceptedConnections: Int {
        state.withLock { $0.acceptedConnections }
    }

    /// Forgets the requests and WebSocket messages recorded so far.
    func reset() {
        state.withLock {
            $0.requests.removeAll()
            $0.webSocketMessages.removeAll()
        }
    }

    /// Records a message a WebSocket client sent on `path` (the oldest dropped beyond the limit).
    func appendWebSocketMessage(_ message: LoopbackWebSocketMessage, path: String) {
        let limit = self.limit
        state.withLock { state in
            state.webSocketMessages[path, default: []].append(message)
            if let count = state.webSocketMessages[path]?.count, count > limit + max(1, limit / 8) {
                state.webSocketMessages[path]?.removeFirst(count - limit)
            }
        }
    }

    /// The messages WebSocket clients sent on `path`, oldest first.
    func webSocketMessages(at path: String) -> [LoopbackWebSocketMessage] {
        let limit = self.limit
        return state.withLock { Array(($0.webSocketMessages[path] ?? []).suffix(limit)) }
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
