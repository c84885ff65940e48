import Foundation

extension LoopbackHTTPServer {
    /// Every request received so far (since creation or the last `resetRequests()`, at most the
    /// `requestLogLimit` most recent), in the order they arrived completely, including those answered
    /// by the fallback. Malformed requests are not recorded.
    ///
    /// - Note: Thread-safe; a snapshot.
    public var requests: [LoopbackHTTPRequest] {
        log.requests
    }

    /// The recorded requests whose path (as sent, without the query) is `path`.
    ///
    /// - Note: Thread-safe; a snapshot.
    public func requests(to path: String) -> [LoopbackHTTPRequest] {
        log.requests.filter { $0.path == path }
    }

    /// Waits until at least `count` requests are recorded or `timeout` seconds pass.
    ///
    /// A request is recorded before its handler runs, so this may return while the response is
    /// still being sent.
    ///
    /// - Parameters:
    ///   - count: How many requests to wait for.
    ///   - timeout: The longest wait, in seconds.
    /// - Returns: All requests recorded by then (fewer than `count` if the wait timed out).
    /// - Note: Thread-safe; blocks the calling thread.
    @discardableResult
    public func waitForRequests(count: Int, timeout: TimeInterval = 5) -> [LoopbackHTTPRequest] {
        log.waitForRequests(count: count, timeout: timeout)
    }

    /// Forgets the requests recorded so far.
    ///
    /// - Note: Thread-safe.
    public func resetRequests() {
        log.reset()
    }

    /// The messages WebSocket clients sent on `path` (`LoopbackHTTPResponse.webSocket(_:protocol:)`),
    /// oldest first, at most the `requestLogLimit` most recent.
    ///
    /// - Note: Thread-safe; a snapshot.
    public func webSocketMessages(at path: String) -> [LoopbackWebSocketMessage] {
        log.webSocketMessages(at: path)
    }

    /// Waits until WebSocket clients sent at least `count` messages on `path`, or `timeout` seconds
    /// pass.
    ///
    /// - Returns: The messages recorded by then (fewer than `count` if the wait timed out).
    /// - Note: Thread-safe; blocks the calling thread.
    @discardableResult
    public func waitForWebSocketMessages(count: Int, at path: String, timeout: TimeInterval = 5) -> [LoopbackWebSocketMessage] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let messages = log.webSocketMessages(at: path)
            if messages.count >= count || Date() >= deadline { return messages }
            Thread.sleep(forTimeInterval: 0.001)
        }
    }
}
