import Foundation
import RxCore

/// When and how an `HTTPClient` retries a failed request.
///
/// By default only transient failures (`HTTPClientError.isTransient`: connection failures,
/// time-outs, 408, 429, 5xx) of idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS) are retried,
/// never a cancelled request. Between attempts the client waits per `delay` (with `jitter`), at
/// least as long as a `Retry-After` on a 429 or 503 asks (capped by `maxRetryAfter`), and retries at
/// once if its `reachability` reports the network back first. `deadline` bounds all attempts
/// together: when it passes, the request fails with `.timedOut`.
///
/// - Note: A value type; `Sendable`.
public struct RetryPolicy: Sendable {
    /// The most attempts in all, the first included; 1 means no retry.
    public var maxAttempts: Int
    /// The wait before each retry.
    public var delay: DelayOptions
    /// Randomisation of each wait.
    public var jitter: Jitter
    /// Where jitter draws its numbers (seed it in tests).
    public var random: RandomSource
    /// The methods that may be retried; by default the idempotent ones.
    public var retryableMethods: Set<HTTPMethod>
    /// Decides which errors are retried; nil means `isTransient`. Never asked for `.cancelled`.
    public var shouldRetry: (@Sendable (HTTPClientError) -> Bool)?
    /// Whether a `Retry-After` header on a 429 or 503 lengthens the wait.
    public var honorsRetryAfter: Bool
    /// The longest `Retry-After` honoured, in seconds.
    public var maxRetryAfter: TimeInterval
    /// A limit in seconds on all attempts and waits together; nil for none.
    public var deadline: TimeInterval?
    /// Whether the client's `reachability` may cut a wait short when the network comes back.
    public var retriesWhenReachable: Bool
    /// Runs the waits and the deadline; a background queue by default, never the main one.
    public var scheduler: SchedulerType

    /// The idempotent methods: GET, HEAD, PUT, DELETE, OPTIONS.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options]

    /// No retry: one attempt.
    public static let none = RetryPolicy(maxAttempts: 1, delay: .immediate)

    /// Creates a policy; see each property for the meaning and default of its parameter.
    public init(
        maxAttempts: Int = 3,
        delay: DelayOptions = .constant(time: 2),
        jitter: Jitter = .none,
        random: RandomSource = .system,
        retryableMethods: Set<HTTPMethod> = RetryPolicy.idempotentMethods,
        shouldRetry: (@Sendable (HTTPClientError) -> Bool)? = nil,
        honorsRetryAfter: Bool = true,
        maxRetryAfter: TimeInterval = 120,
        deadline: TimeInterval? = nil,
        retriesWhenReachable: Bool = true,
        scheduler: SchedulerType = ConcurrentDispatchQueueScheduler.background
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.delay = delay
        self.jitter = jitter
        self.random = random
        self.retryableMethods = retryableMethods
        self.shouldRetry = shouldRetry
        self.honorsRetryAfter = honorsRetryAfter
        self.maxRetryAfter = maxRetryAfter
        self.deadline = deadline
        self.retriesWhenReachable = retriesWhenReachable
        self.scheduler = scheduler
    }

    /// Whether a request with `method` that failed with `error` is worth another attempt.
    public func shouldRetry(_ error: HTTPClientError, method: HTTPMethod) -> Bool {
        guard error.code != .cancelled, retryableMethods.contains(method) else { return false }
        return shouldRetry?(error) ?? error.isTransient
    }

    /// The seconds to wait before retry number `retryNumber` (1-based) after `error`.
    public func delay(beforeRetry retryNumber: Int, after error: HTTPClientError, now: Date = Date()) -> TimeInterval {
        let planned = delay.make(retryNumber, jitter: jitter, random: random)
        guard honorsRetryAfter, error.statusCode == 429 || error.statusCode == 503,
              let asked = error.retryAfter(now: now) else { return planned }
        return max(planned, min(asked, maxRetryAfter))
    }
}
