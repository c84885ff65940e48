import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// The default transport: a `URLSession` set up for long-running daemons.
///
/// - Ephemeral configuration, no `URLCache` (the default one writes to disk under the home
///   directory), no cookie storage and no cookies sent (about 15% faster on Linux), unless given.
/// - Every exchange has its own timer over the whole request (`URLRequest.timeoutInterval`,
///   fractions kept), because Linux does not enforce `timeoutIntervalForResource` and a body
///   trickling in never trips URLSession's own time-out. When it fires the task is cancelled and
///   the request fails with `.timedOut`. URLSession's own time-out is set a second later than ours
///   (and per request, so a request's time-out longer than the session's holds), so ours decides.
/// - Redirects follow the client's `RedirectPolicy` (only http/https targets; credentials
///   stripped across origins; no https → http downgrade), decided in the session delegate.
/// - Response framing is checked (conflicting `Content-Length`, `Content-Length` with
///   `Transfer-Encoding`, truncated bodies fail with `.invalidResponse`) and the body is bounded by
///   `maxResponseBodySize` (decoded bytes; gzip bombs stop at the limit). After a framing error the
///   session is replaced, so that the connection it came on is never reused.
/// - Authentication challenges are declined: a 401 with `WWW-Authenticate: Basic` comes back as
///   an ordinary 401 response with its body (on Linux URLSession would otherwise wait forever,
///   swift-corelibs-foundation issue 5456). Server-trust (TLS) challenges get default handling.
///
/// On Linux, creating any `URLSessionConfiguration` makes Foundation create the empty directories
/// `~/.cache/org.swift.foundation.URLCache/<program>` and `~/.local/share/<program>`; with the
/// settings above nothing is written into them. Linux URLSession rejects IPv6 literal hosts
/// (`http://[::1]:8080/`) with `.badURL`; use a host name. gzip and deflate bodies are decoded.
/// Linux URLSession keeps roughly each request URL's size in memory for good (measured: 10 KB
/// URLs, +78 MB over 8,000 requests, the same through a bare URLSession); this transport keeps
/// nothing per request once it has completed.
/// - Linux URLSession cannot pause a transfer: it reads the network whatever its delegate does,
///   queueing each chunk (at most 16 KiB) for the delegate. A streamed body whose delegate queue
///   falls behind by more than the stream's buffer (`StreamOptions.maxBufferedBytes`, a download's
///   `TransferOptions.maxBufferedBytes`) stops reading (its task is cancelled), still hands
///   over every chunk received, then fails with `.bufferOverflow`, which a download resumes after
///   its last byte. This bounds memory; the AsyncHTTPClient transport paces the network instead.
///
/// - Note: Thread-safe. Completions run on the session's delegate queue: the client's callback
///   queue for the transport a client makes, else a serial queue of the transport's own (never the
///   global pool, whose threads blocked callers may hold).
public final class URLSessionTransport: HTTPTransport, URLRequestForwarding {
    /// The current session; nil after `shutdown()` until the next request creates a fresh one.
    private let sessions: LockedState<URLSession?>
    private let configuration: URLSessionConfiguration
    private let delegate: URLSessionTransportDelegate
    /// Runs the delegate (serial); how many operations wait on it bounds a stream's backlog.
    let delegateQueue: OperationQueue
    private let deadlines: DeadlineQueue
    private let cancelQueue = DispatchQueue(label: "RxHTTP.URLSessionTransport.cancel", qos: .utility)
    private let defaultOptions: HTTPTransportOptions

    /// Creates a transport with a daemon-friendly configuration.
    ///
    /// - Parameters:
    ///   - timeout: URLSession's idle time-out in seconds; default 15 (requests carry their own).
    ///   - cookieStorage: Where to keep cookies; nil (the default) keeps and sends none.
    ///   - urlCache: A response cache; nil (the default) caches nothing.
    ///   - options: The redirect policy and body limit used when the caller gives none (a client
    ///     always gives its configuration's).
    ///   - configure: A last chance to adjust the `URLSessionConfiguration`.
    public convenience init(
        timeout: TimeInterval = 15,
        cookieStorage: HTTPCookieStorage? = nil,
        urlCache: URLCache? = nil,
        options: HTTPTransportOptions = .standard,
        configure: ((URLSessionConfiguration) -> Void)? = nil
    ) {
        self.init(
            configuration: Self.daemonConfiguration(timeout: timeout, cookieStorage: cookieStorage, urlCache: urlCache, configure: configure),
            callbackQueue: nil, options: options
        )
    }

    /// Creates a transport with exactly this configuration (the challenge-declining delegate, the
    /// redirect policy and the whole-request time-out are still installed).
    public convenience init(configuration: URLSessionConfiguration) {
        self.init(configuration: configuration, callbackQueue: nil, options: .standard)
    }

    /// Creates a transport that calls its delegate, its completions and its time-outs on
    /// `callbackQueue` (serial) when given: `HTTPClient` hands it its own callback queue so that
    /// completions need no hop. Without one, a private serial delegate queue and a timer queue.
    init(configuration: URLSessionConfiguration, callbackQueue: DispatchQueue?, options: HTTPTransportOptions) {
        let delegate = URLSessionTransportDelegate()
        let queue = OperationQueue()
        queue.name = "RxHTTP.URLSessionTransport.delegate"
        queue.maxConcurrentOperationCount = 1
        // Always an underlying serial queue: without one, Foundation runs the operations on the
        // global concurrent pool, whose threads callers may all hold blocked (a caller waiting on a
        // semaphore for its answer), and then no answer is delivered until a time-out frees one. A
        // serial queue always gets a thread.
        queue.underlyingQueue = callbackQueue ?? DispatchQueue(label: "RxHTTP.URLSessionTransport.delegate")
        self.delegate = delegate
        self.delegateQueue = queue
        self.configuration = configuration
        self.defaultOptions = options
        self.deadlines = DeadlineQueue(queue: callbackQueue ?? DispatchQueue(label: "RxHTTP.URLSessionTransport.timeouts"))
        self.sessions = .make(URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue))
    }

    /// The default configuration: ephemeral, no cache or cookies unless given, `timeout` as the
    /// idle time-out.
    static func daemonConfiguration(
        timeout: TimeInterval,
        cookieStorage: HTTPCookieStorage? = nil,
        urlCache: URLCache? = nil,
        configure: ((URLSessionConfiguration) -> Void)? = nil
    ) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = urlCache
        configuration.requestCachePolicy = urlCache == nil ? .reloadIgnoringLocalCacheData : .useProtocolCachePolicy
        configuration.httpCookieStorage = cookieStorage
        configuration.httpShouldSetCookies = cookieStorage != nil
        configuration.httpCookieAcceptPolicy = cookieStorage == nil ? .never : .always
        configuration.timeoutIntervalForRequest = Self.sessionTimeout(timeout)
        configure?(configuration)
        return configuration
    }

    deinit {
        sessions.withLock { $0 }?.finishTasksAndInvalidate()
    }

    /// Sends a Foundation request under the options this transport was made with.
    @available(*, deprecated, message: "send an HTTPTransportRequest with send(_:options:completion:)")
    public func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        Self.converting(request, failing: completion) { send($0, options: defaultOptions, completion: completion) }
    }

    public func send(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        start(request, options: options, delivery: .buffered(completion))
    }

    /// Streams the response through the session delegate: the head, each chunk as URLSession hands
    /// it over, the end. The request's time-out bounds the wait for the head.
    public func stream(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        start(request, options: options, delivery: .streaming(receive))
    }

    private func start(_ request: HTTPTransportRequest, options: HTTPTransportOptions, delivery: URLSessionExchange.Delivery) -> Disposable {
        let timeout = TimeoutBounds.clamped(request.timeoutInterval) ?? TimeoutBounds.defaultTimeout
        // Always set: a URLRequest's time-out counts on Linux only once set explicitly, and then
        // overrides the session's in both directions. A stream's body may take for ever: URLSession
        // gets the longest time-out, and the exchange's own timer bounds the head.
        let sessionTimeout: TimeInterval
        if case .streaming = delivery {
            sessionTimeout = Self.sessionTimeout(TimeoutBounds.maximum)
        } else {
            sessionTimeout = Self.sessionTimeout(timeout)
        }
        // The one conversion to Foundation's request, and of the header list to its dictionary. A
        // file goes up as an upload task, which sends its length (a body stream would go chunked).
        let fileBody = request.fileBody
        var foundation = request
        if fileBody != nil { foundation.body = .empty }
        let sent = foundation.urlRequest(timeoutInterval: sessionTimeout)
        // The task is made under the lock that retiring takes: URLSession adds a task to its
        // registry asynchronously, and a task made after `finishTasksAndInvalidate` was queued would
        // run on a session whose delegate is already gone (no callback ever, its exchange and socket
        // kept for good) or hit Foundation's "Session invalidated" trap.
        let (session, task) = sessions.withLock { current -> (URLSession, URLSessionDataTask) in
            let session = current ?? makeSession()
            current = session
            if let fileBody {
                return (session, session.uploadTask(with: sent, fromFile: fileBody.url))
            }
            return (session, session.dataTask(with: sent))
        }
        let exchange = URLSessionExchange(
            task: task, deadlines: deadlines, cancelQueue: cancelQueue, timeout: timeout, options: options,
            method: request.httpMethod, fileBody: fileBody,
            retireConnection: { [weak self] in self?.retire(session) },
            pendingCallbacks: { [delegateQueue] in delegateQueue.operationCount },
            delivery: delivery
        )
        delegate.register(exchange, for: task)
        exchange.start()
        return exchange
    }

    /// Fails with `HTTPClientError(.unsupported)`, asynchronously: URLSession does not hand over a
    /// connection after a 101 (its WebSocket task parses frames itself, and on Linux its libcurl is
    /// commonly built without WebSockets — "WebSockets not supported by libcurl"), so a
    /// `WebSocket` needs `AsyncHTTPClientTransport` (package trait `AsyncHTTPClient`).
    public func upgrade(
        _ request: HTTPTransportRequest,
        options: HTTPTransportOptions,
        completion: @escaping @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void
    ) -> Disposable {
        let error = HTTPClientError(
            .unsupported,
            message: "URLSessionTransport cannot open a WebSocket: URLSession does not hand over the connection after a 101 "
                + "(on Linux its libcurl may lack WebSockets altogether); use AsyncHTTPClientTransport (package trait AsyncHTTPClient)",
            url: request.url, phase: .notSent
        )
        // On the delegate queue, where this transport's completions run (the client's own queue
        // when the client made it, and relies on that).
        delegateQueue.addOperation { completion(.failure(error)) }
        return Disposables.create()
    }

    /// Invalidates the session once no request is in flight on it, closing its pooled
    /// connections; for a transport created by a client that is shutting down. A request sent
    /// afterwards gets a fresh session.
    public func shutdown() {
        sessions.withLock { current in
            current?.finishTasksAndInvalidate()
            current = nil
        }
    }

    /// Drops `session` (if still current): its connections are closed once its tasks finish, so a
    /// connection whose framing was broken is never used again; the next request gets a fresh one.
    private func retire(_ session: URLSession) {
        sessions.withLock { current in
            guard current === session else { return }
            // Under the lock, like task creation (see `start`); it only queues work for URLSession.
            session.finishTasksAndInvalidate()
            current = nil
        }
    }

    private func makeSession() -> URLSession {
        URLSession(configuration: configuration, delegate: delegate, delegateQueue: delegateQueue)
    }

    /// URLSession's own time-out for a request whose whole-request time-out is `timeout`: whole
    /// seconds (Linux truncates to whole seconds, so 0.25 s would time out at once), one more than
    /// ours so that ours fires first, and small enough for Foundation's integer conversion.
    static func sessionTimeout(_ timeout: TimeInterval) -> TimeInterval {
        guard let timeout = TimeoutBounds.clamped(timeout) else { return TimeoutBounds.defaultTimeout.rounded(.up) + 1 }
        return max(1, timeout.rounded(.up)) + 1
    }
}

/// Routes session callbacks to the exchange of each task.
// @unchecked Sendable: the task table lives in one LockedState; NSObject is only a base for ObjC-style delegation.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// Keyed by task object (task identifiers repeat across the sessions of one transport); an
    /// exchange holds its task, so an identifier is never reused while registered.
    private let exchanges = LockedState<[ObjectIdentifier: URLSessionExchange]>.make([:])

    func register(_ exchange: URLSessionExchange, for task: URLSessionTask) {
        exchanges.withLock { $0[ObjectIdentifier(task)] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[ObjectIdentifier(task)] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        exchange(for: dataTask)?.didReceive(response)
        completionHandler(.allow)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
        totalBytesExpectedToSend: Int64
    ) {
        exchange(for: task)?.didSendBody(totalBytesSent)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, needNewBodyStream completionHandler: @escaping (InputStream?) -> Void) {
        // A body sent again (an authentication challenge, a 307): the file from its start.
        completionHandler(exchange(for: task)?.freshBodyStream())
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.didReceive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // No exchange (already completed and removed): the task is being cancelled; answering
        // would make Foundation fail a fatal check, so the handler is dropped unanswered.
        exchange(for: task)?.willRedirect(response: response, proposed: request, answer: completionHandler)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: ObjectIdentifier(task)) }
        exchange?.didComplete(error: error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if canImport(FoundationNetworking)
        // Linux has only HTTP authentication challenges, and waits forever on default handling
        // without a credential: deliver the 401 (or 407) received so far, then cancel the
        // challenge (the task then ends as cancelled, which is ignored).
        exchange(for: task)?.completeWithChallengeResponse(challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
        #else
        // Apple platforms hand the 401 to the completion when no credential is offered, and
        // server-trust (TLS) challenges need the system's default evaluation.
        completionHandler(.performDefaultHandling, nil)
        #endif
    }
}
