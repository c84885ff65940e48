import Foundation

extension HTTPClient {
    /// The settings of a client; `Configuration()` holds the defaults.
    ///
    /// - Note: A value type; `Sendable`. The encoder and decoder are shared by every request of
    ///   the client: configure them before creating it and do not mutate them afterwards.
    public struct Configuration: Sendable {
        /// The time-out of a whole request in seconds (also the default transport's idle
        /// time-out); default 15. A `Request` may override it.
        public var timeout: TimeInterval
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
        /// The response envelope that wraps every model (`{status, message, data}`); default nil.
        public var envelope: ResponseEnvelope?
        /// The status codes that count as success; default 200..<300. Others fail with
        /// `.unacceptableStatusCode`, carrying the status and body.
        public var acceptableStatusCodes: Set<Int>
        /// How requests are retried; default `.none` (one attempt). A `RetryableRequest` brings
        /// its own policy.
        public var retryPolicy: RetryPolicy
        /// Seconds between the reachability probes of `HTTPClient.reachability`; default 5.
        public var reachabilityProbeInterval: TimeInterval
        /// Seconds a reachability probe (a TCP connect) may take; default 2.
        public var reachabilityTimeout: TimeInterval

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
            reachabilityTimeout: TimeInterval = 2
        ) {
            self.timeout = timeout
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
