import Foundation
import RxCore

/// How a server answered a request asking to switch protocols (a WebSocket opening handshake).
///
/// - Note: `Sendable`.
public enum HTTPUpgradeResult: Sendable {
    /// The server switched protocols (status 101): `connection` now carries the new protocol's
    /// bytes both ways and belongs to the caller, who must close it.
    case switched(HTTPResponseHead, any UpgradedConnection)
    /// The server answered with another status: the whole response (its body bounded by
    /// `HTTPTransportOptions.maxResponseBodySize`); the transport has released the connection.
    case answered(HTTPResponse)
}

/// What an upgraded connection reports, in order: bytes, then exactly one `.closed`.
///
/// - Note: `Sendable`.
public enum UpgradedConnectionEvent: Sendable {
    /// Bytes the server sent, in order; the first ones may have arrived with the 101 head.
    case bytes(Data)
    /// The connection is over: nil when the server closed it cleanly (end of stream), otherwise the
    /// failure (an `HTTPClientError` with code `.transport` or `.timedOut`). Nothing follows.
    case closed((any Error)?)
}

/// A connection after a 101 answer: a two-way byte stream the transport no longer reads as HTTP.
///
/// Contract: `start(_:)` is called once; bytes received before it are kept and delivered first.
/// `receive` may run on any thread, one event at a time, in order. After `close()` at most a final
/// `.closed` follows. Writes are sent in the order `write(_:completion:)` was called.
///
/// - Note: Implementations are thread-safe.
public protocol UpgradedConnection: AnyObject, Sendable {
    /// Starts delivering what the server sends to `receive`.
    func start(_ receive: @escaping @Sendable (UpgradedConnectionEvent) -> Void)
    /// Writes `data`; `completion` runs once it was handed to the socket (nil) or failed.
    func write(_ data: Data, completion: @escaping @Sendable ((any Error)?) -> Void)
    /// Closes both directions at once and releases the socket; safe to call more than once.
    func close()
}
