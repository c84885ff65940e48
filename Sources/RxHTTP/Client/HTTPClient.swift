import Foundation
@_spi(RxNetworkKitInternals) import RxCore
import RxReachability
import Synchronization

/// An HTTP client whose calls decode straight into models: by path (`requestObject`), by
/// request type (`request`), as a callback, or reactively as a `Single` (`client.rx`).
///
/// ```swift
/// let client = HTTPClient(baseURL: URL(string: "https://api.example.com")!)
/// client.rx.requestObject(path: "/users/42")          // Single<User>
///     .subscribe(onSuccess: { (user: User) in ... }, onFailure: { error in ... })
///     .disposed(by: bag)
/// ```
///
/// Paths are joined to the base URL with exactly one slash and percent-encoded as paths
/// (spaces, non-ASCII, `#`); the first `?` starts a query, which is kept and followed by the
/// parameters; valid `%XX` escapes are kept. Escape a path segment that must contain `/`, `?`
/// or `#` with `HTTPClient.escapedPathSegment(_:)`.
///
/// A path with a `.` or `..` segment (also percent-encoded, `%2E%2E`) fails with
/// `.invalidRequest`: URL normalisation would otherwise send it outside the base URL's path.
///
/// Every failure is an `HTTPClientError`; see its documentation for what each bad input gives.
/// Each call is one loop around one send: it retries under its `RetryPolicy` (see there for the
/// rules, and for what stacking an outer `retry` does), and delivers exactly once.
/// `suspend()` holds requests not yet sent until `resume()`; `shutdown(gracePeriod:)` drains.
///
/// - Note: Thread-safe: use one client from any thread. Decoding and completions run on
///   `configuration.callbackQueue` (by default a serial background queue of the client, never the
///   main queue); the plugins' `didReceive`/`process` run before, on the thread that finished the
///   exchange (the default transport receives on the client's queue, so a slow completion delays
///   the client's other responses). A suspended client keeps its held requests, and itself, alive
///   until they are resumed or cancelled.
public final class HTTPClient: Sendable {
    private enum Lifecycle {
        case running
        case shuttingDown(ShutdownState)
        case shutDown
    }

    private struct State {
        /// Every call admitted and not yet finished, by id.
        var live: [UInt64: any ClientCall] = [:]
        var lifecycle = Lifecycle.running
    }

    /// The base URL, or nil if `init(host:)` got an invalid host (then every request fails with
    /// `.invalidRequest`).
    public let baseURL: URL?
    /// The settings.
    public let configuration: Configuration
    /// The plugins, in the order their `prepare` runs.
    public let plugins: [any HTTPPlugin]
    /// What sends the requests.
    public let transport: any HTTPTransport
    /// What signs requests that require authentication, if anything.
    public let authenticator: (any Authenticator)?
    /// Reachability of the base URL's host and port (80/443 by scheme unless the URL names one),
    /// or nil without a valid base URL. It probes only while subscribed — for instance while a
    /// retry waits — and cuts the wait short when the network comes back.
    public let reachability: Reachability?

    let baseURLError: HTTPClientError?
    /// Whether `configuration.defaultHeaders` passed `HeaderValidation` (checked once, here): then
    /// a request checks only the headers it adds.
    let defaultHeadersAreValid: Bool
    /// `configuration.defaultHeaders` as the header list every request starts from, sorted by name
    /// once here (a dictionary has no order of its own).
    let defaultHeaderFields: HTTPHeaders
    /// `baseURL` taken apart once, or nil when it is nil or cannot be parsed (`baseURLError`).
    let parsedBaseURL: URLBuilder.Base?
    let callbackQueue: DispatchQueue
    /// Whether the transport calls its completions on `callbackQueue` already (the default
    /// transport on the client's own queue), so a call processes the response without a hop.
    let transportCallsBackOnCallbackQueue: Bool
    /// Whether the client created its transport (then `shutdown` shuts it down too).
    let ownsTransport: Bool
    /// The redirect policy and body limit handed to the transport with every request.
    let transportOptions: HTTPTransportOptions
    /// Per-host protection and reachability of every host the client talks to, created on first need.
    let hosts: HostRegistry
    /// Where circuit breaker changes go (the events stream subscribes to it).
    let circuitChanges: CircuitChangeRelay
    /// The events of every call, host and the authenticator.
    let eventHub = EventHub()
    /// The base URL's host gate, looked up once: most calls go there.
    let baseGate: HostGate?
    /// The client's one clock (`configuration.scheduler`).
    let clock: any SchedulerType
    /// Holds attempts while the client is suspended.
    let suspension = SuspensionInterceptor()
    /// The interceptors of a call that requires authentication, outermost first.
    let signedChain: InterceptorChain
    /// The interceptors of a call that does not.
    let unsignedChain: InterceptorChain
    /// The chains of the calls the client makes for itself, by where they start (signed, unsigned).
    let internalChains: [InternalCallStart: (signed: InterceptorChain, unsigned: InterceptorChain)]
    private let state = LockedState<State>.make(State())

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - baseURL: The URL paths are joined to; must be http or https with a host, or every
    ///     request fails with `.invalidRequest`.
    ///   - configuration: Time-out, default headers, coders, callback queue, envelope, statuses.
    ///   - plugins: Hooks around every request, in order.
    ///   - transport: What sends requests; default a `URLSessionTransport` with the
    ///     configuration's time-out.
    ///   - authenticator: Signs requests whose `requiresAuthentication` is true and renews the
    ///     credential (`OAuthAuthenticator`); default none.
    public convenience init(
        baseURL: URL,
        configuration: Configuration = Configuration(),
        plugins: [any HTTPPlugin] = [],
        transport: (any HTTPTransport)? = nil,
        authenticator: (any Authenticator)? = nil
    ) {
        let base: Result<URL, HTTPClientError>
        do throws(HTTPClientError) {
            try URLBuilder.validateBase(baseURL)
            base = .success(baseURL)
        } catch {
            base = .failure(error)
        }
        self.init(base: base, configuration: configuration, plugins: plugins, transport: transport, authenticator: authenticator)
    }

    /// Creates a client from a host name (`"api.example.com"`, which means https) or a URL string
    /// (`"http://127.0.0.1:8080/v1"`).
    ///
    /// Never crashes on bad input: an empty or invalid host gives a client whose `baseURL` is nil
    /// and whose every request fails with `.invalidRequest` naming the problem.
    ///
    /// - Parameters:
    ///   - host: A host name or an http(s) URL string.
    ///   - configuration: Time-out, default headers, coders, callback queue, envelope, statuses.
    ///   - plugins: Hooks around every request, in order.
    ///   - transport: What sends requests; default a `URLSessionTransport`.
    ///   - authenticator: Signs requests that require authentication; default none.
    public convenience init(
        host: String,
        configuration: Configuration = Configuration(),
        plugins: [any HTTPPlugin] = [],
        transport: (any HTTPTransport)? = nil,
        authenticator: (any Authenticator)? = nil
    ) {
        let base: Result<URL, HTTPClientError>
        do throws(HTTPClientError) {
            base = .success(try URLBuilder.baseURL(host: host))
        } catch {
            base = .failure(error)
        }
        self.init(base: base, configuration: configuration, plugins: plugins, transport: transport, authenticator: authenticator)
    }

    private init(
        base: Result<URL, HTTPClientError>,
        configuration: Configuration,
        plugins: [any HTTPPlugin],
        transport: (any HTTPTransport)?,
        authenticator: (any Authenticator)?
    ) {
        switch base {
        case .success(let url):
            baseURL = url
            do throws(HTTPClientError) {
                parsedBaseURL = try URLBuilder.Base(url)
                baseURLError = nil
            } catch {
                parsedBaseURL = nil
                baseURLError = error
            }
        case .failure(let error):
            baseURL = nil
            parsedBaseURL = nil
            baseURLError = error
        }
        self.configuration = configuration
        self.defaultHeadersAreValid = (try? HeaderValidation.validate(configuration.defaultHeaders, url: nil)) != nil
        self.defaultHeaderFields = HTTPHeaders(configuration.defaultHeaders)
        self.plugins = plugins
        self.authenticator = authenticator
        self.clock = configuration.scheduler
        // The fixed order: yours, then the cache (its answers skip everything after it),
        // coalescing, suspension, the retry policy, host protection, authentication, the plugins.
        var quota: [any HTTPInterceptor] = []
        if let cache = configuration.cache {
            quota.append(CacheInterceptor(cache: cache))
        }
        if configuration.coalescing {
            quota.append(RequestCoalescer(cache: configuration.cache))
        }
        let builtIns: [any HTTPInterceptor] = quota + [suspension, RetryInterceptor(), HostProtectionInterceptor()]
        let unsigned = InterceptorChain(configuration.interceptors + builtIns, observers: configuration.interceptors, plugins: plugins)
        let signed = InterceptorChain(
            configuration.interceptors + builtIns + (authenticator.map { [AuthenticationInterceptor(authenticator: $0)] } ?? []),
            observers: configuration.interceptors, plugins: plugins
        )
        self.unsignedChain = unsigned
        self.signedChain = signed
        let afterCache = configuration.interceptors.count + (configuration.cache == nil ? 0 : 1)
        let afterCoalescing = afterCache + (configuration.coalescing ? 1 : 0)
        self.internalChains = [
            .afterCache: (signed.dropping(first: afterCache), unsigned.dropping(first: afterCache)),
            .afterCoalescing: (signed.dropping(first: afterCoalescing), unsigned.dropping(first: afterCoalescing)),
        ]
        var transportOptions = HTTPTransportOptions(
            redirectPolicy: configuration.redirectPolicy, maxResponseBodySize: configuration.maxResponseBodySize
        )
        transportOptions.headersAreChecked = true
        self.transportOptions = transportOptions
        let callbackQueue = configuration.callbackQueue ?? DispatchQueue(label: "RxHTTP.HTTPClient.callbacks")
        self.callbackQueue = callbackQueue
        if let transport {
            self.transport = transport
            transportCallsBackOnCallbackQueue = false
            ownsTransport = false
        } else {
            // The client's own queue (never a user's queue, which may be the main queue) also
            // runs the default transport's delegate and time-outs: completions need no hop.
            let ownsQueue = configuration.callbackQueue == nil && configuration.callbackScheduler == nil
            self.transport = URLSessionTransport(
                configuration: URLSessionTransport.daemonConfiguration(timeout: configuration.timeout),
                callbackQueue: ownsQueue ? callbackQueue : nil,
                options: transportOptions
            )
            transportCallsBackOnCallbackQueue = ownsQueue
            ownsTransport = true
        }
        let circuitChanges = CircuitChangeRelay()
        let eventHub = self.eventHub
        let clock = configuration.scheduler
        let hosts = HostRegistry(
            configuration: configuration,
            onCircuitChange: { origin, state in circuitChanges.send(origin, state) },
            onFleetEngineChange: { available in
                guard eventHub.isActive else { return }
                eventHub.emit(HTTPClientEvent(requestID: nil, method: nil, url: nil, timestamp: clock.now, kind: .fleetEngineChanged(available: available)))
            }
        )
        self.hosts = hosts
        self.circuitChanges = circuitChanges
        self.reachability = baseURL.flatMap { hosts.reachability(for: $0) }
        self.baseGate = baseURL.flatMap { hosts.gate(for: $0) }
        circuitChanges.listen { origin, state in
            guard eventHub.isActive else { return }
            eventHub.emit(HTTPClientEvent(requestID: nil, method: nil, url: origin.description, timestamp: clock.now, kind: .circuitChanged(state)))
        }
        authenticator?.attach(self)
    }

    /// Every step of every call of this client, as it happens: started, held (and why), each attempt
    /// and its answer, each retry and what ended its wait, credential refreshes, circuit breaker
    /// changes, and the one completion with its outcome, duration and attempts. Hot: it reports what
    /// happens while subscribed, and costs nothing while nobody is.
    ///
    /// Events carry the call's request id (the `#N` of the logger's lines), the method and the
    /// redacted URL — never a header, a body or a token.
    ///
    /// - Note: Events are delivered one at a time, in order per call, never under a lock of the
    ///   client, on the thread that produced them (or one that produced an earlier one). Do not
    ///   block in the observer.
    public var events: Observable<HTTPClientEvent> {
        eventHub.events
    }

    /// Emits an event that belongs to no call (the authenticator's, a WebSocket's), if anybody listens.
    func emitEvent(_ kind: @autoclosure () -> HTTPClientEvent.Kind, url: @autoclosure () -> String? = nil) {
        guard eventHub.isActive else { return }
        eventHub.emit(HTTPClientEvent(requestID: nil, method: nil, url: url(), timestamp: clock.now, kind: kind()))
    }

    /// Escapes one path segment completely, `/`, `?`, `#` and `%` included:
    /// `"/files/" + HTTPClient.escapedPathSegment("a/b?.txt")` is `/files/a%2Fb%3F.txt`.
    public static func escapedPathSegment(_ segment: String) -> String {
        PercentEncoding.encodePathSegment(segment)
    }

    // MARK: Suspension

    /// Whether requests are being held.
    public var isSuspended: Bool {
        suspension.isSuspended
    }

    /// Holds every request not yet sent, and every new one, until `resume()`; requests already
    /// sent finish normally. Cancelling a held request removes it. Idempotent (not counted).
    ///
    /// - Note: Thread-safe.
    public func suspend() {
        suspension.suspend()
    }

    /// Sends the held requests, in the order they were made, and lets new ones through.
    /// Idempotent.
    ///
    /// - Note: Thread-safe. Held requests go on (their plugins' `prepare` included) on this thread.
    public func resume() {
        suspension.resume()
    }

    /// A fresh request id, unique in the process.
    func makeRequestID() -> UInt64 {
        HTTPClient.requestIDs.add(1, ordering: .relaxed).oldValue
    }

    /// Request ids, one per call, unique in the process: two clients never both log `#1`.
    private static let requestIDs = Atomic<UInt64>(1)

    /// Runs `work` where completions run: on `configuration.callbackScheduler` if set, else on the
    /// callback queue. Never synchronously inside the caller's call to the client.
    func runOnCallbackContext(_ work: @escaping @Sendable () -> Void) {
        if let scheduler = configuration.callbackScheduler {
            _ = scheduler.schedule(()) { _ in
                work()
                return Disposables.create()
            }
        } else {
            callbackQueue.async(execute: work)
        }
    }

    /// The state of the circuit breaker of `url`'s host (scheme, host and port): `.closed` when the
    /// client has no breaker or has not talked to that host.
    ///
    /// - Note: Thread-safe.
    public func circuitState(for url: URL) -> CircuitState {
        hosts.existingGate(for: url)?.circuitState(now: clock.now) ?? .closed
    }

    /// The reachability of `url`'s host, for a call waiting to retry there.
    func reachability(for url: URL) -> Reachability? {
        hosts.reachability(for: url)
    }

    /// Registers a call as live; false once the client is shutting down (the call must fail).
    func admit(_ call: any ClientCall) -> Bool {
        state.withLock { state in
            guard case .running = state.lifecycle else { return false }
            state.live[call.id] = call
            return true
        }
    }

    /// Whether `shutdown` has begun.
    var isShuttingDown: Bool {
        state.withLock { state in
            if case .running = state.lifecycle { return false }
            return true
        }
    }

    /// A call delivered its result: it is no longer live. Completes a shutdown that waited for it.
    func callFinished(id: UInt64) {
        let drained = state.withLock { state -> ShutdownState? in
            state.live[id] = nil
            guard state.live.isEmpty, case .shuttingDown(let shutdown) = state.lifecycle else { return nil }
            state.lifecycle = .shutDown
            return shutdown
        }
        if let drained {
            finishShutdown(drained)
        }
    }

    // MARK: Shutdown support (see HTTPClient+Shutdown.swift)

    /// Moves to `shuttingDown` (once) and returns the calls to tell; nil if already shutting down.
    func beginShutdown(_ shutdown: ShutdownState) -> (calls: [any ClientCall], drained: Bool)? {
        state.withLock { state in
            guard case .running = state.lifecycle else { return nil }
            let calls = Array(state.live.values)
            if state.live.isEmpty {
                state.lifecycle = .shutDown
                return (calls, true)
            }
            state.lifecycle = .shuttingDown(shutdown)
            return (calls, false)
        }
    }

    /// The shutdown in progress, or nil when running or already shut down.
    var currentShutdown: ShutdownState? {
        state.withLock { state in
            if case .shuttingDown(let shutdown) = state.lifecycle { return shutdown }
            return nil
        }
    }

    /// Whether the shutdown has completed.
    var isShutDown: Bool {
        state.withLock { state in
            if case .shutDown = state.lifecycle { return true }
            return false
        }
    }

    /// The calls still live (for the end of a grace period).
    var liveCalls: [any ClientCall] {
        state.withLock { Array($0.live.values) }
    }
}

/// What the client needs of a call: its id and the shutdown notices.
protocol ClientCall: AnyObject, Sendable {
    /// The call id, unique within the client.
    var id: UInt64 { get }

    /// The client began shutting down: a queued or waiting call fails with `.shutdown`.
    func clientIsShuttingDown()

    /// The grace period ended: the call fails with `.shutdown` whatever it is doing.
    func gracePeriodEnded()
}
