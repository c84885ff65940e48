import Foundation
import RxCore

/// The bounds of a streamed response (`client.rx.stream`, `jsonLines`, `serverSentEvents`).
///
/// - Note: A value type; `Sendable`.
public struct StreamOptions: Sendable {
    /// Seconds without a byte after which the stream fails with `.timedOut` (a Server-Sent Events
    /// stream reconnects); default 60 (servers send keep-alive comments more often than that).
    /// Infinity turns it off; NaN and values ≤ 0 mean the default.
    public var idleTimeout: TimeInterval
    /// The most bytes received and not yet delivered to a slow reader; past it the stream fails with
    /// `.bufferOverflow` and the exchange is cancelled (never silent loss). URLSession on Linux cannot
    /// pause a transfer, so this bound, not backpressure, is what keeps memory finite: it must absorb
    /// a reader's momentary stalls at the link's speed. Default 64 MiB, clamped to 1 KiB...1 GiB.
    public var maxBufferedBytes: Int
    /// The longest line (JSON line, event-stream line), in bytes; default 1 MiB, clamped to
    /// 1...64 MiB. Longer fails the stream.
    public var maxLineBytes: Int
    /// The largest Server-Sent Event's data, in bytes; default 1 MiB, clamped to 1...64 MiB.
    public var maxEventBytes: Int
    /// Whether a JSON line that does not decode is skipped instead of failing the stream with
    /// `.decodeError` (which names its line number); default false.
    public var skipsInvalidLines: Bool
    /// Runs the idle timer (and a Server-Sent Events stream's reconnect waits). Default a serial
    /// queue of its own, never the global pool (whose threads blocked callers may hold).
    public var scheduler: SchedulerType

    /// Creates options; every parameter has the default described on its property.
    public init(
        idleTimeout: TimeInterval = 60,
        maxBufferedBytes: Int = 64 << 20,
        maxLineBytes: Int = 1 << 20,
        maxEventBytes: Int = 1 << 20,
        skipsInvalidLines: Bool = false,
        scheduler: SchedulerType = SerialDispatchQueueScheduler(internalSerialQueueName: "RxHTTP.stream.timers")
    ) {
        self.idleTimeout = idleTimeout == .infinity ? .infinity : (TimeoutBounds.clamped(idleTimeout) ?? 60)
        self.maxBufferedBytes = min(max(1_024, maxBufferedBytes), 1 << 30)
        self.maxLineBytes = min(max(1, maxLineBytes), 64 << 20)
        self.maxEventBytes = min(max(1, maxEventBytes), 64 << 20)
        self.skipsInvalidLines = skipsInvalidLines
        self.scheduler = scheduler
    }
}

/// How a Server-Sent Events stream reconnects (`client.rx.serverSentEvents`).
///
/// The stream reconnects when the connection ends or fails for a reason that may pass (connection
/// failures, time-outs — the idle one included —, 408, 429, 5xx, and the client's own refusals: an
/// open circuit, a full queue, a spent retry budget), sending `Last-Event-ID`. The wait is the
/// server's `retry:` field if it sent one, else `delay` with `jitter` for the n-th reconnect in a row,
/// raised to a `Retry-After` (or the open circuit's time left); it ends early when the client's reachability sees the host come
/// back. The count of reconnects in a row starts over once a connection delivered an event. A `204`,
/// another 4xx, or a content type other than `text/event-stream` stops the stream (WHATWG).
///
/// - Note: A value type; `Sendable`.
public struct ReconnectPolicy: Sendable {
    /// The wait before the n-th reconnect in a row when the server set no `retry:`; default
    /// exponential from 1 s, doubling, up to 30 s.
    public var delay: DelayOptions
    /// Randomisation of `delay`; default `.equal`.
    public var jitter: Jitter
    /// Where jitter draws its numbers.
    public var random: RandomSource
    /// The most reconnects in a row (without an event in between); nil for no limit (the default).
    public var maxReconnects: Int?
    /// Seconds after subscribing past which the stream stops reconnecting; nil for none.
    public var deadline: TimeInterval?
    /// Whether the host's reachability ends a wait early; default true.
    public var reconnectsWhenReachable: Bool

    /// Creates a policy; every parameter has the default described on its property.
    public init(
        delay: DelayOptions = .exponential(initial: 1, multiplier: 2, maxDelay: 30),
        jitter: Jitter = .equal,
        random: RandomSource = .system,
        maxReconnects: Int? = nil,
        deadline: TimeInterval? = nil,
        reconnectsWhenReachable: Bool = true
    ) {
        self.delay = delay
        self.jitter = jitter
        self.random = random
        self.maxReconnects = maxReconnects.map { max(0, $0) }
        self.deadline = deadline.flatMap { TimeoutBounds.clamped($0) }
        self.reconnectsWhenReachable = reconnectsWhenReachable
    }

    /// Never reconnect: the stream ends with its connection.
    public static let never = ReconnectPolicy(maxReconnects: 0)

    /// The one rule both long-lived connections (event streams and WebSockets) reconnect by: the
    /// seconds to wait before reconnect number `attempt` in a row, or nil when the policy says stop
    /// (past `maxReconnects`, or a wait that would end past `deadline`).
    ///
    /// - Parameters:
    ///   - attempt: The reconnect's number since the last success, from 1.
    ///   - serverDelay: A wait the server asked for in the stream itself (an event stream's
    ///     `retry:`), which replaces `delay`.
    ///   - retryAfter: A `Retry-After` (or an open circuit's time left), which the wait is raised to.
    ///   - elapsed: Seconds since subscribing, for the deadline; nil when unknown.
    func wait(beforeReconnect attempt: Int, serverDelay: TimeInterval? = nil, retryAfter: TimeInterval?, elapsed: TimeInterval?) -> TimeInterval? {
        if let maxReconnects, attempt > maxReconnects { return nil }
        let planned = serverDelay ?? delay.make(attempt, jitter: jitter, random: random)
        let wait = TimeoutBounds.clampedWait(max(planned, retryAfter ?? 0))
        if let deadline, let elapsed, elapsed + wait > deadline { return nil }
        return wait
    }
}
