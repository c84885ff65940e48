import Foundation

/// A proactive limit on the sends to one host: at most `requests` every `per` seconds, spread
/// evenly, with bursts of up to `burst` at once (a token bucket, run as the generic cell rate
/// algorithm: one reservation time per host, no timer per token).
///
/// A send that finds no token waits for its turn — in the order the sends arrived, each one's turn
/// reserved when it arrives — and the wait counts against the call's deadline: a call whose turn
/// would come after its deadline fails at once with `.rejected` (its `retryAfter(now:)` says when a
/// token will be free) instead of waiting in vain. Retries and replays take tokens like first
/// attempts: the limit is the server's, which counts every request.
///
/// With `scope: .fleet` (and `HTTPClient.Configuration.fleet` set) the limit is the whole fleet's:
/// the replicas lease tokens from one shared bucket in batches (see `Fleet`), so that their sends
/// together stay within the limit plus its burst; without a fleet it applies to each client.
///
/// - Note: A value type; `Sendable`.
public struct RateLimit: Sendable, Hashable {
    /// Whose sends the limit counts.
    public enum Scope: String, Sendable, Hashable {
        /// Each client's own (the default): N replicas send N times the limit.
        case process
        /// The whole fleet's (`HTTPClient.Configuration.fleet`): one quota for every replica.
        case fleet
    }

    /// Sends allowed per `per` seconds, 1...1,000,000.
    public var requests: Int
    /// The period in seconds, 0.001...2,592,000 (30 days).
    public var per: TimeInterval
    /// Sends allowed at once after a quiet spell, 1...`requests`; default `requests`.
    public var burst: Int
    /// Whose sends it counts; default `.process`.
    public var scope: Scope

    /// Creates a limit: `RateLimit(requests: 5000, per: 3600)` is GitHub's hourly quota.
    ///
    /// - Parameters:
    ///   - requests: Sends per period; clamped to 1...1,000,000.
    ///   - per: The period in seconds; clamped to 0.001...2,592,000 (NaN: 1).
    ///   - burst: Sends at once after a quiet spell; clamped to 1...`requests`; nil means `requests`.
    ///   - scope: `.process` (each client's, the default) or `.fleet` (every replica's together).
    public init(requests: Int, per: TimeInterval, burst: Int? = nil, scope: Scope = .process) {
        self.requests = min(max(1, requests), 1_000_000)
        self.per = per.isNaN ? 1 : min(max(0.001, per), 2_592_000)
        self.burst = min(max(1, burst ?? self.requests), self.requests)
        self.scope = scope
    }

    /// Seconds between two sends at the steady rate.
    var interval: TimeInterval {
        per / TimeInterval(requests)
    }
}

/// The reservation state of one host's `RateLimit`: the time at which the next send would be due at
/// the steady rate ("theoretical arrival time"). A send may go `tolerance` earlier than that, which
/// is what allows a burst.
struct RateLimitBucket: Sendable {
    let limit: RateLimit
    private var due: Date?

    init(_ limit: RateLimit) {
        self.limit = limit
    }

    private var tolerance: TimeInterval {
        limit.interval * TimeInterval(limit.burst - 1)
    }

    /// The wait before a send arriving `now` may go: 0 for at once.
    func wait(now: Date) -> TimeInterval {
        let next = max(due ?? now, now)
        return max(0, next.timeIntervalSince(now) - tolerance)
    }

    /// Reserves the next turn for a send arriving `now`; returns its wait (0: at once).
    mutating func reserve(now: Date) -> TimeInterval {
        let next = max(due ?? now, now)
        due = next.addingTimeInterval(limit.interval)
        return max(0, next.timeIntervalSince(now) - tolerance)
    }

    /// Gives back a reservation made with `reserve` whose send will not happen, when it is still the
    /// latest (an earlier one cannot be given back without moving the turns after it).
    mutating func cancelLatest(reservedAt turn: Date) {
        guard let due, abs(due.timeIntervalSince(turn)) < 1e-9 else { return }
        self.due = due.addingTimeInterval(-limit.interval)
    }

    /// The reservation mark after the latest reservation, to hand to `cancelLatest`.
    var latestTurn: Date? {
        due
    }
}
