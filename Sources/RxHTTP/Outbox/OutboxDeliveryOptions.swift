import Foundation
import RxCore

/// How `client.rx.deliver(_:options:)` paces an outbox's entries.
public struct OutboxDeliveryOptions: Sendable {
    /// The largest `concurrentPerHost`.
    public static let maxConcurrentPerHost = 64

    /// Entries of one origin (scheme, host, port) in flight at once, 1…64; default 1: each origin's
    /// entries are sent in the order they were enqueued, the next after the previous has its
    /// outcome. More sends faster and gives up that order.
    public var concurrentPerHost: Int
    /// The wait before sending an entry again after the n-th failure in a row that may pass;
    /// default exponential from 1 s, doubling, up to 60 s. A `Retry-After` (or an open circuit's
    /// time left) raises it.
    public var redeliveryDelay: DelayOptions
    /// Randomisation of `redeliveryDelay`; default `.equal`.
    public var jitter: Jitter
    /// Where jitter draws its numbers.
    public var random: RandomSource
    /// Whether the host's reachability ends a wait early; default true.
    public var redeliversWhenReachable: Bool

    /// Creates options; every parameter has the default described on its property, and
    /// `concurrentPerHost` is clamped to 1…64.
    public init(
        concurrentPerHost: Int = 1,
        redeliveryDelay: DelayOptions = .exponential(initial: 1, multiplier: 2, maxDelay: 60),
        jitter: Jitter = .equal,
        random: RandomSource = .system,
        redeliversWhenReachable: Bool = true
    ) {
        self.concurrentPerHost = min(max(1, concurrentPerHost), Self.maxConcurrentPerHost)
        self.redeliveryDelay = redeliveryDelay
        self.jitter = jitter
        self.random = random
        self.redeliversWhenReachable = redeliversWhenReachable
    }

    /// The seconds before sending an entry again after its `failures`-th failure in a row.
    func wait(afterFailure failures: Int, retryAfter: TimeInterval?) -> TimeInterval {
        TimeoutBounds.clampedWait(max(redeliveryDelay.make(failures, jitter: jitter, random: random), retryAfter ?? 0))
    }
}
