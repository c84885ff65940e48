import Foundation
import RxCore

extension HTTPClient {
    /// The settings of a client; `Configuration()` holds the defaults.
    ///
    /// - Note: A value type; `Sendable`. The encoder and decoder are shared by every request of
    ///   the client: configure them before creating it and do not mutate them afterwards.
    public struct Configuration: Sendable {
        /// The time-out of a whole request in seconds (also the default transport's idle
        /// time-out); default 15. A `Request` may override it, longer or shorter. NaN, zero and
        /// negative values mean the default; values over 10^9 s are clamped to 10^9 s.
        public var timeout: TimeInterval {
            get { storedTimeout }
            set { storedTimeout = TimeoutBounds.clamped(newValue) ?? TimeoutBounds.defaultTimeout }
        }
        private var storedTimeout: TimeInterval = TimeoutBounds.defaultTimeout
        /// Headers sent with every request, below the request's own: by default `User-Agent:
        /// RxNetworkKit/<version>`, `Accept: application/json` and `Accept-Encoding: gzip, deflate`.
        public var defaultHeaders: [String: String]
        /// Encodes `JSONBody` values and `Encodable` parameters.
        public var jsonEncoder: JSONEncoder
        /// Decodes models.
        public var jsonDecoder: JSONDecoder
        /// Where completions (and decoding) run; default a serial background queue of the client,
        /// never the main queue (a daemon's main queue may never run).
        public var callbackQueue: DispatchQueue?
        /// Runs completions instead of `callbackQueue`, when set. Give the `TestScheduler` of a test
        /// (as `scheduler` too, with a `StubTransport` on it) and the whole client runs in virtual
        /// time on the test's thread: `scheduler.start { client.rx.request(...) }` records every
        /// event at its exact tick. Default nil.
        public var callbackScheduler: (any SchedulerType)?
        /// The client's clock: retry waits, deadlines, `Retry-After` cooldowns, circuit breaker and
        /// retry budget windows, and the timestamps of `events`. Default a serial queue of its own
        /// (never the main one, never the global pool, whose threads blocked callers may hold); a
        /// `TestScheduler` in tests.
        public var scheduler: any SchedulerType
        /// What acts on every attempt of every call, outermost first, before the built-in
        /// suspension, retry policy, host protection and authentication (see `HTTPInterceptor`);
        /// default none.
        public var interceptors: [any HTTPInterceptor]
        /// The response envelope that wraps every model (`{status, message, data}`); default nil.
        public var envelope: ResponseEnvelope?
        /// The status codes that count as success; default 200..<300. Others fail with
        /// `.unacceptableStatusCode`, carrying the status and body.
        public var acceptableStatusCodes: Set<Int>
        /// How requests are retried; default `.none` (one attempt). A `RetryableRequest` brings
        /// its own policy.
        public var retryPolicy: RetryPolicy
        /// Seconds between the reachability probes of a host that answers, while a call waits to
        /// retry there; default 5.
        public var reachabilityProbeInterval: TimeInterval
        /// Seconds a reachability probe (a TCP connect) may take; default 2.
        public var reachabilityTimeout: TimeInterval
        /// Seconds between the probes of a host that does not answer, while a call waits to retry
        /// there; default 0.5. This is what makes recovery prompt: a waiting request is retried
        /// within about this long after its server comes back, at the cost of at most
        /// 1/interval connect attempts per second per waiting host (2/s by default). An idle
        /// client probes nothing.
        public var reachabilityRecoveryProbeInterval: TimeInterval
        /// Which redirects the default transport follows; default `.follow` (up to 10 hops, http
        /// and https only, credentials stripped across origins, no https → http).
        public var redirectPolicy: RedirectPolicy
        /// What every request of the client to one host shares: the `Retry-After` cooldown, the
        /// retry budget, an optional circuit breaker and optional bounded concurrency; see
        /// `HostProtection` for the defaults (cooldown on, a generous budget, no breaker, no limit).
        public var hostProtection: HostProtection
        /// The largest response body accepted, in bytes after decoding; default 64 MiB, clamped to
        /// 0...4 GiB. A bigger body fails with `.responseTooLarge` and the connection is closed.
        public var maxResponseBodySize: Int
        /// The private HTTP cache (RFC 9111) the client answers from and stores into; default nil:
        /// nothing is cached. See `HTTPCache` and `Request.cachePolicy`.
        public var cache: HTTPCache?
        /// Whether identical GET and HEAD requests in flight at once share one exchange (same URL,
        /// and the same `Authorization`, `Accept`, `Accept-Encoding`, `Accept-Language` and the
        /// headers a stored answer's `Vary` names); default false. Each caller gets its own decoded
        /// answer; the exchange is cancelled when the last of them leaves.
        public var coalescing: Bool
        /// The fleet of replicas this client belongs to; default nil (this process alone). With a
        /// fleet, a `Retry-After` cooldown or an open circuit seen by one replica holds that host in
        /// every replica (within 100 ms), a recovery reaches them all, and a `RateLimit` with
        /// `scope: .fleet` is the fleet's. See `Fleet`.
        public var fleet: Fleet?

        /// The default headers: `User-Agent`, `Accept` and `Accept-Encoding`.
        public static let standardHeaders: [String: String] = [
            "User-Agent": "RxNetworkKit/\(RxHTTPModule.version)",
            "Accept": "application/json",
            "Accept-Encoding": "gzip, deflate",
        ]

        /// Creates a configuration; every parameter has the default described on its property.
        public init(
            timeout: TimeInterval = 15,
            defaultHeaders: [String: String] = Configuration.standardHeaders,
            jsonEncoder: JSONEncoder = JSONEncoder(),
            jsonDecoder: JSONDecoder = JSONDecoder(),
            callbackQueue: DispatchQueue? = nil,
            envelope: ResponseEnvelope? = nil,
            acceptableStatusCodes: Set<Int> = Set(200..<300),
            retryPolicy: RetryPolicy = .none,
            reachabilityProbeInterval: TimeInterval = 5,
            reachabilityTimeout: TimeInterval = 2,
            reachabilityRecoveryProbeInterval: TimeInterval = 0.5,
            callbackScheduler: (any SchedulerType)? = nil,
            redirectPolicy: RedirectPolicy = .follow,
            maxResponseBodySize: Int = HTTPTransportOptions.defaultMaxResponseBodySize,
            hostProtection: HostProtection = HostProtection(),
            interceptors: [any HTTPInterceptor] = [],
            scheduler: (any SchedulerType)? = nil,
            cache: HTTPCache? = nil,
            coalescing: Bool = false,
            fleet: Fleet? = nil
        ) {
            self.fleet = fleet
            self.cache = cache
            self.coalescing = coalescing
            self.hostProtection = hostProtection
            self.interceptors = interceptors
            // A policy's own scheduler (deprecated) still sets the clock when no scheduler is given.
            // A serial queue of its own, not the global pool: callers blocked on that pool's threads
            // (waiting for their answers) would hold back every retry wait and deadline.
            self.scheduler = scheduler ?? retryPolicy.legacyScheduler ?? SerialDispatchQueueScheduler(internalSerialQueueName: "RxHTTP.HTTPClient.clock")
            self.reachabilityRecoveryProbeInterval = reachabilityRecoveryProbeInterval
            self.callbackScheduler = callbackScheduler
            self.redirectPolicy = redirectPolicy
            self.maxResponseBodySize = min(max(0, maxResponseBodySize), HTTPTransportOptions.maxResponseBodySizeLimit)
            self.storedTimeout = TimeoutBounds.clamped(timeout) ?? TimeoutBounds.defaultTimeout
            self.defaultHeaders = defaultHeaders
            self.jsonEncoder = jsonEncoder
            self.jsonDecoder = jsonDecoder
            self.callbackQueue = callbackQueue
            self.envelope = envelope
            self.acceptableStatusCodes = acceptableStatusCodes
            self.retryPolicy = retryPolicy
            self.reachabilityProbeInterval = reachabilityProbeInterval
            self.reachabilityTimeout = reachabilityTimeout
        }
    }
}
