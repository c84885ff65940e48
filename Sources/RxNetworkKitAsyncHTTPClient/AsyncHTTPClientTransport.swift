// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOSSL
import RxCore
@_spi(TransportSupport) import RxHTTP

/// An `HTTPTransport` on AsyncHTTPClient (SwiftNIO): for daemons that outgrow URLSession, which on
/// Linux does about 2,000 requests/s one at a time at ~400 µs of CPU each and keeps ~4 connections.
///
/// ```swift
/// let client = RxHTTP.HTTPClient(baseURL: api, transport: AsyncHTTPClientTransport())
/// ```
///
/// It behaves like the default `URLSessionTransport` where the client can tell:
/// - Every request has a whole-request time-out (`HTTPTransportRequest.timeoutInterval`, fractions kept;
///   NIO's deadline); a stream's time-out bounds the wait for its head. When it passes the request
///   fails with `.timedOut`.
/// - Redirects follow the client's `RedirectPolicy` (http/https targets only, no https → http
///   downgrade, credentials stripped across origins, 301/302/303 turn POST into GET, at most
///   `maxRedirects` hops): AsyncHTTPClient's own redirect handling is off and this transport
///   follows them itself.
/// - gzip and deflate bodies are decoded (`Accept-Encoding: gzip, deflate` is sent unless the
///   request sets its own); the body is bounded by `maxResponseBodySize` in decoded bytes, checked
///   as it arrives; framing is checked as for URLSession (conflicting `Content-Length`s fail with
///   `.invalidResponse`; a connection lost inside the body, with `.transport`).
/// - Failures carry a truthful `HTTPClientError.phase`: `.notSent` until the request head was
///   written (refused connect, DNS failure, a deadline passed while waiting for a connection),
///   `.sentWithoutResponse` after, `.responded` once a status line arrived.
///
/// Differences from `URLSessionTransport`: a failed connect is reported at once instead of being
/// retried inside AsyncHTTPClient (`retryConnectionEstablishment` is off in the configuration this
/// transport makes, so that the client's retry policy, reachability and host protection decide, in
/// one place); IPv6 literal hosts (`http://[::1]:8080/`) work; there is no authentication-challenge
/// machinery to decline (a 401 is always an ordinary response); connections are pooled per host up
/// to the configuration's limit (8 by default) instead of URLSession's ~4; HTTP/2 is negotiated over
/// TLS.
///
/// Protocol switches (`upgrade(_:options:completion:)`, a WebSocket opening handshake) run on
/// SwiftNIO directly, on the same event loop group, since AsyncHTTPClient cannot hand a connection
/// over.
///
/// Ownership: `AsyncHTTPClientTransport()` creates and owns an AsyncHTTPClient on NIO's shared
/// event loop group. It is shut down when the `HTTPClient` it is given to shuts down
/// (`shutsDownWithClient`), or by `shutdown()`; a request sent afterwards gets a fresh one.
/// `AsyncHTTPClientTransport(borrowing:)` uses yours and never shuts it down: that stays yours to
/// do, after every client using it has shut down. A borrowed client should be configured with
/// `redirectConfiguration: .disallow` (so that the client's redirect policy applies); when it
/// follows a redirect itself the request fails with `.redirectRefused` instead of passing silently.
///
/// - Note: Thread-safe. Completions and stream parts are delivered on a NIO event loop thread; the
///   `HTTPClient` hops to its callback queue.
public final class AsyncHTTPClientTransport: HTTPTransport, URLRequestForwarding {
    /// Where the AsyncHTTPClient comes from.
    private enum Source: Sendable {
        case owned(AsyncHTTPClient.HTTPClient.Configuration, EventLoopGroup)
        /// A borrowed client's configuration cannot be read: its protocol switches' TLS settings
        /// are given apart (nil: NIO's client defaults).
        case borrowed(AsyncHTTPClient.HTTPClient, upgradeTLS: TLSConfiguration?)
    }

    private let source: Source
    /// The owned client; nil before the first request and after `shutdown()`.
    private let owned = NIOLockedValueBox<AsyncHTTPClient.HTTPClient?>(nil)
    private let defaultOptions: HTTPTransportOptions
    /// The TLS context of protocol switches over https, made on the first one.
    private let upgradeTLSContext = NIOLockedValueBox<NIOSSLContext?>(nil)
    /// Whether the client decodes gzip/deflate, so that `Accept-Encoding` may be offered.
    private let decodesBodies: Bool

    /// Creates a transport that owns an AsyncHTTPClient made with `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: The AsyncHTTPClient configuration; default `daemonConfiguration()`. Its
    ///     redirect configuration is replaced by `.disallow` (redirects follow the client's policy).
    ///   - eventLoopGroup: Where the client's connections run; default NIO's shared group.
    ///   - options: The redirect policy and body limit used when the caller gives none (an
    ///     `HTTPClient` always gives its configuration's).
    public init(
        configuration: AsyncHTTPClient.HTTPClient.Configuration = AsyncHTTPClientTransport.daemonConfiguration(),
        eventLoopGroup: EventLoopGroup = AsyncHTTPClient.HTTPClient.defaultEventLoopGroup,
        options: HTTPTransportOptions = .standard
    ) {
        var configuration = configuration
        configuration.redirectConfiguration = .disallow
        self.source = .owned(configuration, eventLoopGroup)
        self.defaultOptions = options
        if case .enabled = configuration.decompression {
            self.decodesBodies = true
        } else {
            self.decodesBodies = false
        }
    }

    /// Creates a transport on your AsyncHTTPClient, which it never shuts down.
    ///
    /// - Parameters:
    ///   - client: The client; configure it with `redirectConfiguration: .disallow`, and with
    ///     decompression if you want gzip bodies decoded (then say so with `decodesBodies`).
    ///   - decodesBodies: Whether `client` decompresses, so that `Accept-Encoding: gzip, deflate`
    ///     may be sent; default false.
    ///   - upgradeTLSConfiguration: The TLS settings of protocol switches over https (WebSockets,
    ///     `wss`), which run on SwiftNIO beside `client` and cannot read its configuration: give
    ///     the same trust roots, certificates and verification as `client`'s. Default nil: NIO's
    ///     client defaults (the system's trust roots, full verification).
    ///   - options: The redirect policy and body limit used when the caller gives none.
    public init(
        borrowing client: AsyncHTTPClient.HTTPClient, decodesBodies: Bool = false,
        upgradeTLSConfiguration: TLSConfiguration? = nil, options: HTTPTransportOptions = .standard
    ) {
        self.source = .borrowed(client, upgradeTLS: upgradeTLSConfiguration)
        self.defaultOptions = options
        self.decodesBodies = decodesBodies
    }

    /// The configuration an owning transport uses by default: gzip/deflate decoded (bounded by the
    /// client's body limit, not by a ratio), no redirects (the client's policy follows them), a
    /// failed connect reported at once, a 10 s connect time-out, up to `connectionsPerHost`
    /// connections per host.
    ///
    /// - Parameter connectionsPerHost: Pooled HTTP/1.1 connections per host; default 8, clamped
    ///   to 1...1,024.
    public static func daemonConfiguration(connectionsPerHost: Int = 8) -> AsyncHTTPClient.HTTPClient.Configuration {
        var pool = AsyncHTTPClient.HTTPClient.Configuration.ConnectionPool(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: min(max(1, connectionsPerHost), 1_024)
        )
        pool.retryConnectionEstablishment = false
        return AsyncHTTPClient.HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10)),
            connectionPool: pool,
            decompression: .enabled(limit: .none)
        )
    }

    /// True for a transport that owns its AsyncHTTPClient: the `HTTPClient` it is given to shuts it
    /// down at the end of its own shutdown.
    public var shutsDownWithClient: Bool {
        if case .owned = source { return true }
        return false
    }

    /// Sends a Foundation request with the transport's default options (see
    /// `send(_:options:completion:)`).
    ///
    /// - Parameters:
    ///   - request: The request; one without a URL fails with `.invalidRequest`.
    ///   - completion: Receives the response or the failure, once, on an event loop thread.
    /// - Returns: What cancels the exchange.
    @available(*, deprecated, message: "send an HTTPTransportRequest with send(_:options:completion:)")
    public func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        do {
            return send(try HTTPTransportRequest(request), options: defaultOptions, completion: completion)
        } catch {
            completion(.failure(error))
            return Disposables.create()
        }
    }

    /// Sends `request` through AsyncHTTPClient, the body buffered within `options.maxResponseBodySize`.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - options: Time-out, body limit and redirect policy of this exchange.
    ///   - completion: Receives the response or the failure, once, on an event loop thread.
    /// - Returns: What cancels the exchange; cancelling closes the connection.
    public func send(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        start(request, options: options, delivery: .buffered(completion))
    }

    /// Streams the response: the head, each body part as NIO reads it, the end. The request's
    /// time-out bounds the wait for the head.
    public func stream(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        start(request, options: options, delivery: .streaming(receive))
    }

    /// Sends `request` asking to switch protocols, on SwiftNIO directly (AsyncHTTPClient cannot hand
    /// its connection over) and on the AsyncHTTPClient's event loop group: the request head is
    /// written as given (`Host` added if missing), TLS for https (the owned configuration's TLS
    /// settings or a borrowed client's `upgradeTLSConfiguration`, else NIO's defaults; SNI unless
    /// the host is an IP literal). On 101 the connection carries raw bytes, the first of them
    /// possibly read with the head; on another status the body is read (bounded by
    /// `options.maxResponseBodySize`) and the connection closed.
    ///
    /// Failures: `.notSent` until the request was written (refused, DNS, TLS handshake),
    /// `.sentWithoutResponse` after, `.invalidResponse` for a malformed answer, `.timedOut` past
    /// `request.timeoutInterval` (connect, the TLS handshake and the wait for the head),
    /// `.invalidRequest` for a request that cannot be written, `.unsupported` on an event loop group
    /// that is not NIOPosix's (Network.framework).
    ///
    /// - Note: Thread-safe; `completion` runs on a NIO event loop thread. The first https switch
    ///   makes the TLS context (loading the trust roots) on the calling thread.
    public func upgrade(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        let exchange = NIOUpgradeExchange(
            request: request, options: options, eventLoopGroup: eventLoopGroup,
            tlsContext: { [upgradeTLSContext, tlsConfiguration] in
                try upgradeTLSContext.withLockedValue { context in
                    if let context { return context }
                    let made = try NIOSSLContext(configuration: tlsConfiguration)
                    context = made
                    return made
                }
            },
            completion: completion
        )
        exchange.start()
        return exchange
    }

    /// Where connections run: the owned client's group, or the borrowed client's.
    private var eventLoopGroup: any EventLoopGroup {
        switch source {
        case .owned(_, let group): group
        case .borrowed(let client, _): client.eventLoopGroup
        }
    }

    /// The TLS settings of a protocol switch: the owned configuration's or those given with a
    /// borrowed client, else NIO's client defaults; HTTP/1.1 only (no ALPN offer of h2, which
    /// cannot switch protocols).
    private var tlsConfiguration: TLSConfiguration {
        let given = switch source {
        case .owned(let clientConfiguration, _): clientConfiguration.tlsConfiguration
        case .borrowed(_, let upgradeTLS): upgradeTLS
        }
        var configuration = given ?? .makeClientConfiguration()
        configuration.applicationProtocols = []
        return configuration
    }

    /// Shuts an owned AsyncHTTPClient down (in-flight requests on it fail; connections close) without
    /// blocking; the next request creates a fresh one. Does nothing to a borrowed client.
    public func shutdown() {
        let retired = owned.withLockedValue { client -> AsyncHTTPClient.HTTPClient? in
            defer { client = nil }
            return client
        }
        retired?.shutdown { _ in }
    }

    deinit {
        shutdown()
    }

    private var client: AsyncHTTPClient.HTTPClient {
        switch source {
        case .borrowed(let client, _):
            return client
        case .owned(let configuration, let group):
            return owned.withLockedValue { current in
                if let current { return current }
                let fresh = AsyncHTTPClient.HTTPClient(eventLoopGroup: group, configuration: configuration)
                current = fresh
                return fresh
            }
        }
    }

    private func start(_ request: HTTPTransportRequest, options: HTTPTransportOptions, delivery: AsyncHTTPClientExchange.Delivery) -> Disposable {
        let exchange = AsyncHTTPClientExchange(
            client: client, request: request, options: options, offersCompression: decodesBodies, delivery: delivery
        )
        exchange.start(request)
        return exchange
    }
}
#endif
