import Foundation
import RxCore

/// The bounds and timers of a `WebSocket`.
///
/// Every interval is clamped (NaN and values ≤ 0 mean the default; infinity turns a timer off where
/// said); every size is clamped to the range its property names.
///
/// - Note: A value type; `Sendable`.
public struct WebSocketOptions: Sendable {
    /// Seconds between pings on an open connection; default 30. Infinity sends none.
    public var pingInterval: TimeInterval
    /// Seconds a ping waits for a pong; past it the connection counts as dead (a half-open TCP
    /// connection), is dropped and reconnected. Default 10.
    public var pongTimeout: TimeInterval
    /// Seconds the closing handshake waits for the server's close frame before the connection is
    /// dropped; default 5.
    public var closeTimeout: TimeInterval
    /// The largest message received, all its fragments together, in bytes; a bigger one closes the
    /// connection with 1009 and fails the socket with `.responseTooLarge`. Default 16 MiB, clamped
    /// to 125 bytes...1 GiB.
    public var maxMessageSize: Int
    /// The most sends not yet written: queued while the socket connects or reconnects, or handed to
    /// the connection and not yet flushed. One more fails at once with `.bufferOverflow` (the
    /// others are kept). Default 256, clamped to 1...1,000,000.
    public var maxQueuedSends: Int
    /// The most bytes of received messages not yet delivered to slow subscribers; past it the
    /// connection is closed with 1008 and the socket fails with `.bufferOverflow` — never silent
    /// loss, never unbounded memory. Default 64 MiB, clamped to 1 KiB...1 GiB.
    public var maxBufferedBytes: Int
    /// Whether messages, states and ends are delivered at once on the thread that produced them —
    /// the connection's (a NIO event loop with `AsyncHTTPClientTransport`) for messages, the
    /// caller's for `close`, the scheduler's for timers — instead of after a hop to the client's
    /// callback queue. Default false.
    ///
    /// The hop wakes the callback queue's thread for nearly every read, which costs more than the
    /// rest of receiving a message: on, a fast subscriber gets 1.5× (32-byte text) to 2.4× (4 KiB
    /// binary) the messages per second for a third to a half of the CPU (Benchmarks/README.md).
    /// Still in order and one at a time; but a subscriber that blocks holds the connection (its
    /// reads wait: TCP pushes back on the server), and one that calls `close` or `send` from
    /// `onNext` is told of the close after its `onNext` returns. Never block on an event loop;
    /// move heavy work away with `observe(on:)`.
    public var deliversOnConnectionThread: Bool
    /// Headers added to the opening handshake (the client's default headers and authentication
    /// apply as to any request).
    public var headers: [String: String]
    /// Runs the ping, pong, close and reconnect timers (a `TestScheduler` in tests). Default a
    /// serial queue of its own, never the global pool (whose threads blocked callers may hold).
    public var scheduler: SchedulerType

    /// Creates options; every parameter has the default described on its property.
    public init(
        pingInterval: TimeInterval = 30,
        pongTimeout: TimeInterval = 10,
        closeTimeout: TimeInterval = 5,
        maxMessageSize: Int = 16 << 20,
        maxQueuedSends: Int = 256,
        maxBufferedBytes: Int = 64 << 20,
        deliversOnConnectionThread: Bool = false,
        headers: [String: String] = [:],
        scheduler: SchedulerType = SerialDispatchQueueScheduler(internalSerialQueueName: "RxHTTP.WebSocket.timers")
    ) {
        self.pingInterval = pingInterval == .infinity ? .infinity : (TimeoutBounds.clamped(pingInterval) ?? 30)
        self.pongTimeout = TimeoutBounds.clamped(pongTimeout) ?? 10
        self.closeTimeout = TimeoutBounds.clamped(closeTimeout) ?? 5
        self.maxMessageSize = min(max(125, maxMessageSize), 1 << 30)
        self.maxQueuedSends = min(max(1, maxQueuedSends), 1_000_000)
        self.maxBufferedBytes = min(max(1_024, maxBufferedBytes), 1 << 30)
        self.deliversOnConnectionThread = deliversOnConnectionThread
        self.headers = headers
        self.scheduler = scheduler
    }
}
