/// A `Request` that carries its own retry policy, which the client applies in `request(_:)` and
/// `client.rx.request(_:)` instead of its configuration's.
///
/// The default (seed 000's) is three attempts, two seconds apart, for transient failures of
/// idempotent methods.
public protocol RetryableRequest: Request {
    /// How this request is retried.
    var retryPolicy: RetryPolicy { get }
}

extension RetryableRequest {
    /// Three attempts, two seconds apart.
    public var retryPolicy: RetryPolicy {
        RetryPolicy(maxAttempts: 3, delay: .constant(time: 2))
    }
}
