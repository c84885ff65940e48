import Foundation

/// What `FaultInjection` does to a request a rule picked.
///
/// Each fault is what the network or the server would really do, with the truthful
/// `HTTPClientError.Phase`, so that the client's retry policy, host protection and authentication
/// react as they would in production.
///
/// - Note: A value type; `Sendable`.
public enum Fault: Sendable, Hashable {
    /// The request waits this many seconds before it goes out (0...3,600).
    case latency(TimeInterval)
    /// The connection is refused: nothing reaches the server (`.transport`, `.notSent`).
    case refuseConnection
    /// The request reaches the server, which acts on it, and the connection drops before the
    /// answer (`.transport`, `.sentWithoutResponse`): the case idempotency keys exist for.
    case dropAfterSending
    /// The request reaches the server and no answer comes back within the request's time-out
    /// (`.timedOut`, `.sentWithoutResponse`).
    case timeout
    /// The server answers with this status (100...599) without acting on the request; with
    /// `retryAfter`, a `Retry-After` header in whole seconds (0...86,400) — a 503 or a 429 storm.
    case status(Int, retryAfter: TimeInterval? = nil)
    /// The real answer, its body delivered at this many bytes per second (1...10^9): a slow
    /// server or link (buffered bodies arrive after `size / rate` seconds; streamed ones are paced).
    case slowBody(bytesPerSecond: Int)

    /// The fault's name in `FaultInjection.counts`.
    public var kind: String {
        switch self {
        case .latency: "latency"
        case .refuseConnection: "refuseConnection"
        case .dropAfterSending: "dropAfterSending"
        case .timeout: "timeout"
        case .status(let code, _): "status \(code)"
        case .slowBody: "slowBody"
        }
    }

    /// The fault with every number within its documented bounds.
    var bounded: Fault {
        switch self {
        case .latency(let seconds):
            .latency(min(TimeoutBounds.clampedWait(seconds), 3_600))
        case .status(let code, let retryAfter):
            .status(min(max(code, 100), 599), retryAfter: retryAfter.map { min(TimeoutBounds.clampedWait($0), 86_400) })
        case .slowBody(let rate):
            .slowBody(bytesPerSecond: min(max(rate, 1), 1_000_000_000))
        case .refuseConnection, .dropAfterSending, .timeout:
            self
        }
    }
}

/// When `FaultInjection` injects a `Fault`: at a rate, for the requests that match.
///
/// - Note: A value type; `Sendable`.
public struct FaultRule: Sendable, Hashable {
    /// What to inject.
    public var fault: Fault
    /// The share of matching requests it hits, 0...1 (NaN counts as 0).
    public var rate: Double
    /// Only requests to this host (case-insensitive); nil for any.
    public var host: String?
    /// Only requests whose path starts with this; nil for any.
    public var pathPrefix: String?
    /// Only requests with these methods; nil for any.
    public var methods: Set<HTTPMethod>?

    /// Creates a rule; `fault` and `rate` are clamped to their bounds.
    public init(_ fault: Fault, rate: Double, host: String? = nil, pathPrefix: String? = nil, methods: Set<HTTPMethod>? = nil) {
        self.fault = fault.bounded
        self.rate = rate.isNaN ? 0 : min(max(rate, 0), 1)
        self.host = host
        self.pathPrefix = pathPrefix
        self.methods = methods
    }

    func matches(_ request: HTTPTransportRequest) -> Bool {
        if let host, request.url.host?.caseInsensitiveCompare(host) != .orderedSame { return false }
        if let pathPrefix, !request.url.path.hasPrefix(pathPrefix) { return false }
        if let methods, !methods.contains(request.method) { return false }
        return true
    }
}
