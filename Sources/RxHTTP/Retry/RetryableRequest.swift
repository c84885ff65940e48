/// A `Request` whose retry policy defaults to three attempts, two seconds apart (seed 000's), for
/// transient failures of idempotent methods, instead of the client's.
///
/// Any `Request` may state its own `retryPolicy`; this protocol only changes the default.
public protocol RetryableRequest: Request {
    /// How this request is retried, in place of the client's policy.
    var retryPolicy: RetryPolicy { get }
}

extension RetryableRequest {
    /// Three attempts, two seconds apart.
    public var retryPolicy: RetryPolicy {
        RetryPolicy(maxAttempts: 3, delay: .constant(time: 2))
    }
}
