import Foundation
import RxCore

/// When and how an `HTTPClient` retries a failed request: the one decision its retry loop asks
/// after every failed attempt.
///
/// A failure is retried when all of these hold:
/// - attempts are left (`maxAttempts` counts every send, the first included);
/// - repeating is safe: nothing was sent (`HTTPClientError.phase == .notSent`), or the request is
///   idempotent by method or declaration, or `.keyed` (see `Idempotency`);
/// - the failure may pass: `shouldRetry` if given, else `isTransient` (connection failures,
///   time-outs, garbage answers, 408, 429, 5xx); never a cancellation or a shutdown;
/// - the wait fits in what is left of `deadline`.
///
/// The wait is `delay` (with `jitter`), at least what a `Retry-After` header of a 429 or 503 asks
/// (seconds or an HTTP date, capped by `maxRetryAfter`; garbage or a past date is ignored). It ends
/// early, with one new attempt, when the client's reachability sees the host come back
/// (`retriesWhenReachable`). A wait that would end past the deadline is not started: the request
/// fails at once with the last error, its message saying so. `deadline` bounds everything: held
/// time while the client is suspended, every attempt (each gets `min(its time-out, time left)`)
/// and every wait.
///
/// Stacking: when the client retried a failure under a policy that allows retries, the error it
/// delivers has `decidedByRetryPolicy == true`, so `isTransient` and `isRetryable` are false and an
/// outer `retry(..., shouldRetry: { $0.isTransient })` passes it on instead of multiplying the
/// attempts (a policy of 3 under an operator of 3 sends 3 requests, not 9). An outer retry that
/// ignores the error (`shouldRetry: { _ in true }`) does multiply them; use one or the other. A
/// request's own policy (`Request.retryPolicy`) replaces the client's for that request; it never
/// adds to it.
///
/// - Note: A value type; `Sendable`. Every interval is clamped: NaN and negative count as 0,
///   anything over 10^9 s (infinity too) as 10^9 s; a `deadline` that is NaN, zero or negative fails
///   the request with `.invalidRequest`.
public struct RetryPolicy: Sendable {
    /// The most attempts in all, the first included; 1 means no retry. Clamped to 1...1,000.
    public var maxAttempts: Int { didSet { inheritsClient = false } }
    /// The wait before each retry.
    public var delay: DelayOptions { didSet { inheritsClient = false } }
    /// Randomisation of each wait.
    public var jitter: Jitter { didSet { inheritsClient = false } }
    /// Where jitter draws its numbers (seed it in tests).
    public var random: RandomSource { didSet { inheritsClient = false } }
    /// The methods that count as idempotent for requests whose idempotency is `.byMethod`; by
    /// default GET, HEAD, PUT, DELETE, OPTIONS and TRACE.
    public var retryableMethods: Set<HTTPMethod> { didSet { inheritsClient = false } }
    /// Decides which failures may pass; nil means `isTransient`. Never asked for `.cancelled` or
    /// `.shutdown`, nor for a request that is not safe to repeat.
    public var shouldRetry: (@Sendable (HTTPClientError) -> Bool)? { didSet { inheritsClient = false } }
    /// Whether a `Retry-After` header on a 429 or 503 lengthens the wait.
    public var honorsRetryAfter: Bool { didSet { inheritsClient = false } }
    /// The longest `Retry-After` honoured, in seconds; a longer one waits this long.
    public var maxRetryAfter: TimeInterval { didSet { inheritsClient = false } }
    /// A limit in seconds on everything a call does (held, attempts, waits); nil for none.
    public var deadline: TimeInterval? { didSet { inheritsClient = false } }
    /// Whether the client's reachability of the request's host may cut a wait short when the host
    /// comes back.
    public var retriesWhenReachable: Bool { didSet { inheritsClient = false } }
    /// Whether this is `RetryPolicy.client`, unchanged: the client's policy stands.
    private(set) var inheritsClient = false
    /// The scheduler given to the deprecated initializer, which a `Configuration` made without a
    /// `scheduler` of its own takes as the client's clock.
    var legacyScheduler: SchedulerType?

    /// The scheduler given to the deprecated initializer, or a background queue.
    @available(*, deprecated, message: "the client's clock is HTTPClient.Configuration.scheduler")
    public var scheduler: SchedulerType {
        legacyScheduler ?? ConcurrentDispatchQueueScheduler.background
    }
    /// Told about each retry just before it starts (attempt number, the error, the planned delay,
    /// and whether the timer or reachability ended the wait); runs on the thread that ended the
    /// wait. Must be thread-safe.
    public var onRetry: (@Sendable (RetryNotification<HTTPClientError>) -> Void)? { didSet { inheritsClient = false } }

    /// The idempotent methods: GET, HEAD, PUT, DELETE, OPTIONS, TRACE.
    public static let idempotentMethods: Set<HTTPMethod> = [.get, .head, .put, .delete, .options, .trace]

    /// No retry: one attempt.
    public static let none = RetryPolicy(maxAttempts: 1, delay: .immediate)

    /// The client's own policy (`HTTPClient.Configuration.retryPolicy`): the default of
    /// `Request.retryPolicy`, so that a request that states none is retried as its client says.
    /// Changing any of its properties makes it a policy of its own, from `none`'s values.
    public static let client: RetryPolicy = {
        var policy = RetryPolicy.none
        policy.inheritsClient = true
        return policy
    }()

    /// The policy a call runs with: this one, or the client's when this is `.client`.
    func resolved(client policy: RetryPolicy) -> RetryPolicy {
        inheritsClient ? policy : self
    }

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
        onRetry: (@Sendable (RetryNotification<HTTPClientError>) -> Void)? = nil
    ) {
        self.maxAttempts = min(max(1, maxAttempts), 1_000)
        self.delay = delay
        self.jitter = jitter
        self.random = random
        self.retryableMethods = retryableMethods
        self.shouldRetry = shouldRetry
        self.honorsRetryAfter = honorsRetryAfter
        self.maxRetryAfter = TimeoutBounds.clampedWait(maxRetryAfter)
        self.deadline = deadline
        self.retriesWhenReachable = retriesWhenReachable
        self.onRetry = onRetry
    }

    /// Creates a policy with its own scheduler: the client's clock is now
    /// `HTTPClient.Configuration.scheduler`, which takes this one when given none.
    @available(*, deprecated, message: "give the scheduler to HTTPClient.Configuration(scheduler:): the client has one clock")
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
        scheduler: SchedulerType,
        onRetry: (@Sendable (RetryNotification<HTTPClientError>) -> Void)? = nil
    ) {
        self.init(
            maxAttempts: maxAttempts, delay: delay, jitter: jitter, random: random, retryableMethods: retryableMethods,
            shouldRetry: shouldRetry, honorsRetryAfter: honorsRetryAfter, maxRetryAfter: maxRetryAfter, deadline: deadline,
            retriesWhenReachable: retriesWhenReachable, onRetry: onRetry
        )
        legacyScheduler = scheduler
    }

    /// Whether a request with `method` and `idempotency` that failed with `error` is worth another
    /// attempt and safe to send again (attempts and deadline aside).
    public func shouldRetry(_ error: HTTPClientError, method: HTTPMethod, idempotency: Idempotency = .byMethod) -> Bool {
        guard error.code != .cancelled, error.code != .shutdown else { return false }
        guard error.phase == .notSent || idempotency.allowsRepeatAfterSending(method, idempotentMethods: retryableMethods) else {
            return false
        }
        return shouldRetry?(error) ?? error.isTransientFailure
    }

    /// The seconds to wait before retry number `retryNumber` (1-based) after `error`: the planned
    /// delay with jitter, raised to a `Retry-After` of a 429 or 503 (capped by `maxRetryAfter`).
    public func delay(beforeRetry retryNumber: Int, after error: HTTPClientError, now: Date = Date()) -> TimeInterval {
        let planned = TimeoutBounds.clampedWait(delay.make(retryNumber, jitter: jitter, random: random))
        guard honorsRetryAfter, error.statusCode == 429 || error.statusCode == 503,
              let asked = error.retryAfter(now: now) else { return planned }
        return max(planned, min(TimeoutBounds.clampedWait(asked), maxRetryAfter))
    }
}
