import Foundation
import RxCore
import RxReachability

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
/// Every failure is an `HTTPClientError`; see its documentation for what each bad input gives.
/// `suspend()` holds requests not yet sent until `resume()`.
///
/// - Note: Thread-safe: use one client from any thread. Completions, decoding and the plugins'
///   `didReceive`/`process` run on `configuration.callbackQueue` (by default a serial
///   background queue of the client, never the main queue; the default transport then also
///   receives on it, so a slow completion delays the client's other responses). A suspended
///   client keeps its held requests, and itself, alive until they are resumed or cancelled.
public final class HTTPClient: Sendable {
    private struct State {
        var isSuspended = false
        var held: [any HeldCall] = []
        var nextID: UInt64 = 1
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
    /// Reachability of the base URL's host and port (80/443 by scheme unless the URL names one),
    /// or nil without a valid base URL. It probes only while subscribed — for instance while a
    /// retry waits — and cuts the wait short when the network comes back.
    public let reachability: Reachability?

    let baseURLError: HTTPClientError?
    /// `baseURL` taken apart once, or nil when it is nil or cannot be parsed (`baseURLError`).
    let parsedBaseURL: URLBuilder.Base?
    let callbackQueue: DispatchQueue
    /// Whether the transport calls its completions on `callbackQueue` already (the default
    /// transport on the client's own queue), so a call processes the response without a hop.
    let transportCallsBackOnCallbackQueue: Bool
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
    public convenience init(
        baseURL: URL,
        configuration: Configuration = Configuration(),
        plugins: [any HTTPPlugin] = [],
        transport: (any HTTPTransport)? = nil
    ) {
        let base: Result<URL, HTTPClientError>
        do throws(HTTPClientError) {
            try URLBuilder.validateBase(baseURL)
            base = .success(baseURL)
        } catch {
            base = .failure(error)
        }
        self.init(base: base, configuration: configuration, plugins: plugins, transport: transport)
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
    public convenience init(
        host: String,
        configuration: Configuration = Configuration(),
        plugins: [any HTTPPlugin] = [],
        transport: (any HTTPTransport)? = nil
    ) {
        let base: Result<URL, HTTPClientError>
        do throws(HTTPClientError) {
            base = .success(try URLBuilder.baseURL(host: host))
        } catch {
            base = .failure(error)
        }
        self.init(base: base, configuration: configuration, plugins: plugins, transport: transport)
    }

    private init(
        base: Result<URL, HTTPClientError>,
        configuration: Configuration,
        plugins: [any HTTPPlugin],
        transport: (any HTTPTransport)?
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
        self.plugins = plugins
        let callbackQueue = configuration.callbackQueue ?? DispatchQueue(label: "RxHTTP.HTTPClient.callbacks")
        self.callbackQueue = callbackQueue
        if let transport {
            self.transport = transport
            transportCallsBackOnCallbackQueue = false
        } else {
            // The client's own queue (never a user's queue, which may be the main queue) also
            // runs the default transport's delegate and time-outs: completions need no hop.
            let ownsQueue = configuration.callbackQueue == nil
            self.transport = URLSessionTransport(
                configuration: URLSessionTransport.daemonConfiguration(timeout: configuration.timeout),
                callbackQueue: ownsQueue ? callbackQueue : nil
            )
            transportCallsBackOnCallbackQueue = ownsQueue
        }
        self.reachability = baseURL.flatMap {
            Reachability(
                url: $0,
                probeInterval: configuration.reachabilityProbeInterval,
                timeout: configuration.reachabilityTimeout
            )
        }
    }

    /// Escapes one path segment completely, `/`, `?`, `#` and `%` included:
    /// `"/files/" + HTTPClient.escapedPathSegment("a/b?.txt")` is `/files/a%2Fb%3F.txt`.
    public static func escapedPathSegment(_ segment: String) -> String {
        PercentEncoding.encodePathSegment(segment)
    }

    // MARK: Suspension

    /// Whether requests are being held.
    public var isSuspended: Bool {
        state.withLock { $0.isSuspended }
    }

    /// Holds every request not yet sent, and every new one, until `resume()`; requests already
    /// sent finish normally. Cancelling a held request removes it. Idempotent (not counted).
    ///
    /// - Note: Thread-safe.
    public func suspend() {
        state.withLock { $0.isSuspended = true }
    }

    /// Sends the held requests, in the order they were made, and lets new ones through.
    /// Idempotent.
    ///
    /// - Note: Thread-safe. Held requests run their plugins' `prepare` on this thread.
    public func resume() {
        let released = state.withLock { state -> [any HeldCall] in
            state.isSuspended = false
            defer { state.held = [] }
            return state.held
        }
        for call in released {
            call.transmit()
        }
    }

    /// A fresh request id.
    func makeRequestID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
    }

    /// Sends `call` now, or holds it if the client is suspended.
    func enqueue(_ call: any HeldCall, bypassesSuspension: Bool) {
        let hold = state.withLock { state -> Bool in
            guard state.isSuspended, !bypassesSuspension else { return false }
            state.held.append(call)
            return true
        }
        if !hold {
            call.transmit()
        }
    }

    /// Forgets a held call (it was cancelled).
    func removeHeld(id: UInt64) {
        state.withLock { state in
            state.held.removeAll { $0.id == id }
        }
    }
}

/// A request the client can hold while suspended.
protocol HeldCall: AnyObject, Sendable {
    /// The request id, unique within the client.
    var id: UInt64 { get }

    /// Runs the plugins and sends the request (does nothing if it was cancelled).
    func transmit()
}
