import Foundation

/// Protection shared by every request of a client to one host (scheme, host and port): a cooldown
/// when the host asks for one (or says its rate limit is spent), a retry budget, an optional circuit
/// breaker, optional bounded concurrency and an optional proactive rate limit.
///
/// Defaults, and why:
/// - **Cooldown on**: a 429 or 503 with `Retry-After` pauses the whole host until the time given
///   (capped by `maxCooldown`, 120 s): the server asked, and every caller backing off together is
///   what turns one bad minute into one bad minute instead of a retry storm.
/// - **Retry budget on, generous**: `RetryBudget(ratio: 0.5, minRetriesPerSecond: 10)` never stops the
///   retries of a healthy daemon, and bounds them to 50% extra load during an outage.
/// - **Circuit breaker off**: failing fast changes behaviour a caller can see; turn it on with a
///   policy that fits the service.
/// - **Concurrency unbounded**: the transport has its own connection limits; set
///   `maxConcurrentRequests` to keep a host from more than that many of your requests at once.
/// - **Rate-limit headers read, no rate limit of our own**: a server that says none of its quota
///   remains pauses the host until its reset; `rateLimit` paces sends below a quota you know.
///
/// - Note: A value type; `Sendable`.
public struct HostProtection: Sendable {
    /// The retry budget per host; nil for none.
    public var retryBudget: RetryBudget?
    /// The circuit breaker per host; nil for none.
    public var circuitBreaker: CircuitBreakerPolicy?
    /// The most requests in flight per host; nil for no limit. Clamped to 1...10,000.
    public var maxConcurrentRequests: Int?
    /// The most requests waiting for a slot per host; a request beyond it fails at once with
    /// `.rejected`. Clamped to 0...100,000; default 1,024.
    public var maxQueuedRequests: Int
    /// Whether a 429 or 503 with `Retry-After` pauses the host for every request of the client.
    public var honorsRetryAfterCooldown: Bool
    /// The longest cooldown, in seconds; default 120. The `RetryPolicy.maxRetryAfter` of the
    /// request that saw the `Retry-After` caps it too.
    public var maxCooldown: TimeInterval
    /// A proactive limit on the sends to each host (a token bucket); nil (the default) for none.
    public var rateLimit: RateLimit?
    /// Whether the server's own rate-limit headers are read (`RateLimit`, `RateLimit-Remaining` /
    /// `-Reset`, `X-RateLimit-Remaining` / `-Reset`): when one says nothing remains, the host pauses
    /// until the stated reset (capped by `maxCooldown`), like a `Retry-After` cooldown, instead of
    /// spending requests on 429s. Default true.
    public var readsRateLimitHeaders: Bool

    /// Creates a configuration; every parameter has the default described on its property.
    public init(
        retryBudget: RetryBudget? = RetryBudget(ratio: 0.5, minRetriesPerSecond: 10),
        circuitBreaker: CircuitBreakerPolicy? = nil,
        maxConcurrentRequests: Int? = nil,
        maxQueuedRequests: Int = 1_024,
        honorsRetryAfterCooldown: Bool = true,
        maxCooldown: TimeInterval = 120,
        rateLimit: RateLimit? = nil,
        readsRateLimitHeaders: Bool = true
    ) {
        self.retryBudget = retryBudget
        self.circuitBreaker = circuitBreaker
        self.maxConcurrentRequests = maxConcurrentRequests.map { min(max(1, $0), 10_000) }
        self.maxQueuedRequests = min(max(0, maxQueuedRequests), 100_000)
        self.honorsRetryAfterCooldown = honorsRetryAfterCooldown
        self.maxCooldown = TimeoutBounds.clampedWait(maxCooldown)
        self.rateLimit = rateLimit
        self.readsRateLimitHeaders = readsRateLimitHeaders
    }

    /// No protection at all: no cooldown, no budget, no breaker, no limit, no rate-limit headers.
    public static let none = HostProtection(retryBudget: nil, honorsRetryAfterCooldown: false, readsRateLimitHeaders: false)
}

/// A per-host retry budget in the Finagle/Envoy manner: over a sliding window of `window` seconds,
/// retries may be at most `ratio` × the first attempts made, plus `minRetriesPerSecond` × `window`
/// so that a quiet client can still retry. A retry the budget cannot pay for is not attempted: the
/// request fails with `.retryBudgetExhausted`, its `underlying` the last error.
///
/// Under a total outage the load a client sends is thus bounded by about `1 + ratio` times what it
/// is asked for (plus the floor).
///
/// - Note: A value type; `Sendable`.
public struct RetryBudget: Sendable, Hashable {
    /// Retries allowed per first attempt, 0...1,000.
    public var ratio: Double
    /// Retries allowed per second whatever the traffic, 0...100,000.
    public var minRetriesPerSecond: Double
    /// The sliding window in seconds, 1...600; default 10.
    public var window: TimeInterval

    /// Creates a budget.
    public init(ratio: Double, minRetriesPerSecond: Double, window: TimeInterval = 10) {
        self.ratio = ratio.isNaN ? 0 : min(max(0, ratio), 1_000)
        self.minRetriesPerSecond = minRetriesPerSecond.isNaN ? 0 : min(max(0, minRetriesPerSecond), 100_000)
        self.window = window.isNaN ? 10 : min(max(1, window), 600)
    }
}

/// When a per-host circuit breaker opens, and for how long.
///
/// It counts only the server's failures — connection failures, time-outs, garbage answers and 5xx —
/// against all answered or failed attempts in the last `window` seconds; 4xx answers count as
/// successes (the server is up) and cancellations not at all. It opens when at least
/// `minimumRequests` attempts were counted and the failure ratio reaches `failureRatio`. While open,
/// requests fail at once with `.circuitOpen` (its `retryAfter(now:)` says when it will try again).
/// After `breakDuration` (or longer, if a `Retry-After` asked for longer) — or at once, when the
/// client's reachability sees the host come back — it is half-open: one trial request goes through
/// and the others fail fast with `.circuitOpen`; the trial's success closes it, its failure opens it
/// again.
///
/// - Note: A value type; `Sendable`.
public struct CircuitBreakerPolicy: Sendable, Hashable {
    /// The failure ratio that opens the circuit, 0...1.
    public var failureRatio: Double
    /// The fewest attempts in the window before the ratio counts; at least 1.
    public var minimumRequests: Int
    /// The sliding window in seconds, 1...3,600.
    public var window: TimeInterval
    /// How long the circuit stays open before a trial, in seconds (10^9 at most).
    public var breakDuration: TimeInterval

    /// Creates a policy.
    public init(failureRatio: Double, minimumRequests: Int, window: TimeInterval, breakDuration: TimeInterval) {
        self.failureRatio = failureRatio.isNaN ? 1 : min(max(0, failureRatio), 1)
        self.minimumRequests = max(1, minimumRequests)
        self.window = window.isNaN ? 30 : min(max(1, window), 3_600)
        self.breakDuration = TimeoutBounds.clampedWait(breakDuration)
    }
}

/// The state of a host's circuit breaker.
public enum CircuitState: Sendable, Hashable {
    /// Requests go through.
    case closed
    /// Requests fail fast until `until`.
    case open(until: Date)
    /// One trial request goes through.
    case halfOpen
}
