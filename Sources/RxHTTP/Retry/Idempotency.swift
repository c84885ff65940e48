/// Whether a request may be sent again after it reached the server without a usable answer —
/// the rule that keeps retries from duplicating side effects.
///
/// Whatever the declaration, a request that failed before anything was sent (`phase ==
/// .notSent`: refused connection, DNS failure, a client-side refusal) may be retried. After
/// sending (`.sentWithoutResponse`, or a 408, 429 or 5xx answer), only:
/// - `.byMethod` (the default): the policy's idempotent methods (GET, HEAD, PUT, DELETE, OPTIONS,
///   TRACE unless changed in `RetryPolicy.retryableMethods`);
/// - `.idempotent`: any method, as declared by the request (e.g. a POST that only reads);
/// - `.keyed`: any method; the client sends one `Idempotency-Key` header (a UUID) with the request,
///   the same on every attempt and replay of the call and fresh for the next call, so the server
///   can drop duplicates. A key the request sets itself is kept.
/// `.notIdempotent` requests are never sent twice once sent.
public enum Idempotency: Sendable, Hashable, CaseIterable {
    /// Idempotent if the method is (see `RetryPolicy.retryableMethods`).
    case byMethod
    /// Safe to repeat whatever the method.
    case idempotent
    /// Never repeated once sent, whatever the method.
    case notIdempotent
    /// Repeated with the same `Idempotency-Key` header on every attempt.
    case keyed

    /// The header that carries the key of a `.keyed` request.
    public static let keyHeader = "Idempotency-Key"

    /// Whether a request with `method` may be sent again after it was sent once.
    ///
    /// - Parameters:
    ///   - method: The request's method.
    ///   - idempotentMethods: The methods that count as idempotent for `.byMethod`.
    public func allowsRepeatAfterSending(_ method: HTTPMethod, idempotentMethods: Set<HTTPMethod>) -> Bool {
        switch self {
        case .byMethod: return idempotentMethods.contains(method)
        case .idempotent, .keyed: return true
        case .notIdempotent: return false
        }
    }
}
