import Foundation

/// Where a `WebSocket` is in its life, as `WebSocket.state` reports it.
///
/// - Note: A value type; `Sendable`.
public enum WebSocketState: Sendable, Equatable {
    /// Nobody subscribed to `messages` yet: nothing is connected.
    case idle
    /// The opening handshake is under way (the first one, or after a wait).
    case connecting
    /// The connection is open: messages flow both ways.
    case open
    /// The connection ended for a reason that may pass; the `attempt`-th reconnect in a row starts
    /// after `after` seconds (sooner if the host's reachability comes back).
    case reconnecting(attempt: Int, after: TimeInterval)
    /// The socket ended: by a close (its code and reason; 1006 when the connection was lost), by
    /// the last subscriber leaving (1000), or by a failure that ends it for good. A new subscriber
    /// to `messages` connects again.
    case closed(code: WebSocketCloseCode, reason: String)
}
