import Foundation
import RxCore

/// The default transport: a `URLSession` set up for long-running daemons.
///
/// - Ephemeral configuration, no `URLCache` (the default one writes to disk under the home
///   directory), no cookie storage and no cookies sent (about 15% faster on Linux), unless given.
/// - `timeoutIntervalForRequest` (an idle time-out) is the given `timeout`; on top of it every
///   exchange has its own timer over the whole request (`URLRequest.timeoutInterval`), because
///   Linux does not enforce `timeoutIntervalForResource` and a body trickling in never trips the
///   idle time-out. When it fires the task is cancelled and the request fails with `.timedOut`.
/// - Authentication challenges are declined: a 401 with `WWW-Authenticate: Basic` comes back as
///   an ordinary 401 response with its body (on Linux URLSession would otherwise wait forever,
///   swift-corelibs-foundation issue 5456). Server-trust (TLS) challenges get default handling.
///
/// On Linux, creating any `URLSessionConfiguration` makes Foundation create the empty directories
/// `~/.cache/org.swift.foundation.URLCache/<program>` and `~/.local/share/<program>`; with the
/// settings above nothing is written into them.
/// Linux URLSession truncates time-outs to whole seconds (0.5 s times out at once); this
/// transport hands it whole seconds (rounded up) and enforces fractional time-outs itself.
/// Linux URLSession rejects IPv6 literal hosts (`http://[::1]:8080/`) with `.badURL`; use a host
/// name. Redirects are followed; gzip bodies are decoded.
///
/// - Note: Thread-safe. Completions run on the session's delegate queue.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let delegate: URLSessionTransportDelegate
    private let deadlines: DeadlineQueue

    /// Creates a transport with a daemon-friendly configuration.
    ///
    /// - Parameters:
    ///   - timeout: The idle time-out (`timeoutIntervalForRequest`) in seconds; default 15.
    ///   - cookieStorage: Where to keep cookies; nil (the default) keeps and sends none.
    ///   - urlCache: A response cache; nil (the default) caches nothing.
    ///   - configure: A last chance to adjust the `URLSessionConfiguration`.
    public convenience init(
        timeout: TimeInterval = 15,
        cookieStorage: HTTPCookieStorage? = nil,
        urlCache: URLCache? = nil,
        configure: ((URLSessionConfiguration) -> Void)? = nil
    ) {
        self.init(configuration: Self.daemonConfiguration(timeout: timeout, cookieStorage: cookieStorage, urlCache: urlCache, configure: configure))
    }

    /// Creates a transport with exactly this configuration (the challenge-declining delegate and
    /// the whole-request time-out are still installed).
    public convenience init(configuration: URLSessionConfiguration) {
        self.init(configuration: configuration, callbackQueue: nil)
    }

    /// Creates a transport that calls its delegate, its completions and its time-outs on
    /// `callbackQueue` (serial) when given: `HTTPClient` hands it its own callback queue so that
    /// completions need no hop. Without one, a private serial delegate queue and a timer queue.
    init(configuration: URLSessionConfiguration, callbackQueue: DispatchQueue?) {
        let delegate = URLSessionTransportDelegate()
        let queue = OperationQueue()
        queue.name = "RxHTTP.URLSessionTransport.delegate"
        queue.maxConcurrentOperationCount = 1
        queue.underlyingQueue = callbackQueue
        self.delegate = delegate
        self.deadlines = DeadlineQueue(queue: callbackQueue ?? DispatchQueue(label: "RxHTTP.URLSessionTransport.timeouts"))
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: queue)
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
        configuration.timeoutIntervalForRequest = Self.idleTimeout(timeout)
        configure?(configuration)
        return configuration
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    public func send(
        _ request: URLRequest,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) -> Disposable {
        let idle = Self.idleTimeout(request.timeoutInterval)
        var sent = request
        if sent.timeoutInterval != idle {
            // Only when it differs: a URLRequest setter copies the whole request on Linux.
            sent.timeoutInterval = idle
        }
        let task = session.dataTask(with: sent)
        let exchange = URLSessionExchange(task: task, deadlines: deadlines, timeout: request.timeoutInterval, completion: completion)
        delegate.register(exchange, for: task.taskIdentifier)
        exchange.start()
        return exchange
    }

    /// The idle time-out handed to URLSession: whole seconds, at least one. Linux URLSession
    /// truncates time-outs to whole seconds, so 0.25 s would time out at once; the exchange's own
    /// timer enforces the exact (fractional) time-out over the whole request instead.
    static func idleTimeout(_ timeout: TimeInterval) -> TimeInterval {
        guard timeout.isFinite, timeout > 0 else { return 60 }
        return max(1, timeout.rounded(.up))
    }
}

/// Routes session callbacks to the exchange of each task.
// @unchecked Sendable: the task table lives in one LockedState; NSObject is only a base for ObjC-style delegation.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let exchanges = LockedState<[Int: URLSessionExchange]>.make([:])

    func register(_ exchange: URLSessionExchange, for taskIdentifier: Int) {
        exchanges.withLock { $0[taskIdentifier] = exchange }
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        exchange(for: dataTask)?.didReceive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.didReceive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let exchange = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
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
