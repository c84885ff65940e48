import Foundation
import RxCore

/// Acts on every attempt of every call of a client: the one seam through which the cache,
/// coalescing, authentication, host protection, the retry policy and your own concerns (a
/// signature, tracing) reach a call. Alamofire's `RequestInterceptor` (adapt + retry), widened.
///
/// Before each attempt the interceptors are asked in order (`prepare`); each may pass the request on
/// (changed or not), hold it (a wait it can cancel: a queue place, a refresh), answer it without the
/// network, or fail the call. After the attempt the interceptors that let it through are told the
/// result in the reverse order (`didReceive`), the one closest to the network first; each may let
/// the result pass, replace it, or decide: retry after a delay, replay at once, or stop with an
/// error. The first decision ends the round: interceptors further out are not asked about that
/// attempt.
///
/// The order is fixed: `Configuration.interceptors` first (outermost, in the order given), then the
/// built-ins — the cache (`Configuration.cache`; its answers skip everything after it), coalescing
/// (`Configuration.coalescing`), the client's suspension, the retry policy, host protection
/// (cooldown, circuit breaker, retry budget, concurrency queue, rate limit), authentication, and
/// last, closest to the network, the client's plugins (`HTTPPlugin`, run by one interceptor). Then
/// the transport (`FaultInjection` is a transport). So your interceptor sees each attempt before
/// the client answers from its cache, holds, admits or signs it, and sees each answer after them
/// (after the plugins' `process`); a `.retry` from the retry policy means it is not asked about the
/// failed attempt.
///
/// ```swift
/// struct RequestSigner: HTTPInterceptor {
///     func prepare(_ request: HTTPTransportRequest, for call: HTTPCall,
///                  completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void) -> Disposable? {
///         var signed = request
///         signed.headers.replaceOrAdd(name: "X-Signature", value: "v1")
///         completion(.proceed(signed))
///         return nil
///     }
/// }
/// let client = HTTPClient(baseURL: api, configuration: .init(interceptors: [RequestSigner()]))
/// ```
///
/// - Note: Implementations are shared by every call of a client and must be thread-safe. The hooks of
///   one call never run at the same time; they may run on any thread (the caller's, a transport's,
///   a timer's). Keep per-call state in the call (`HTTPCall.value(for:)`), not in the interceptor.
public protocol HTTPInterceptor: Sendable {
    /// Decides about an attempt before it is sent: calls `completion` exactly once, at once or later.
    ///
    /// - Parameters:
    ///   - request: The request as the interceptors before this one left it.
    ///   - call: The call the attempt belongs to.
    ///   - completion: Takes the decision: `.proceed(request)` (the request to pass on),
    ///     `.answer(response)` (no network: the interceptors before this one see it as the answer),
    ///     or `.fail(error)` (the attempt ends with this error, which the interceptors before this
    ///     one see). Thread-safe; later calls are ignored.
    /// - Returns: While holding the attempt, what cancels the wait (the call was cancelled, timed
    ///   out or shut down: `completion` must then not be needed); nil if `completion` was already
    ///   called or nothing needs cancelling.
    func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable?

    /// Decides about an attempt with the request as a Foundation `URLRequest`: what interceptors
    /// implemented before `HTTPTransportRequest`. Superseded by `prepare(_:for:completion:)` taking
    /// an `HTTPTransportRequest`, whose default converts the request and calls this one (an
    /// interceptor that implements neither pays that conversion on each attempt); this one's
    /// default passes the request on.
    ///
    /// - Parameters:
    ///   - request: The request as the interceptors before this one left it.
    ///   - call: The call the attempt belongs to.
    ///   - completion: Takes the decision, as for `prepare(_:for:completion:)`.
    /// - Returns: What cancels the wait, as for `prepare(_:for:completion:)`.
    @available(*, deprecated, message: "implement prepare(_:for:completion:) taking an HTTPTransportRequest")
    func prepare(
        _ request: URLRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable?

    /// Decides about the result of an attempt this interceptor let through.
    ///
    /// Called exactly once for every attempt whose `prepare` ended in `.proceed`, unless an
    /// interceptor closer to the network decided about it first (then the call goes on without
    /// asking this one). For an attempt cut short — the call was cancelled, reached its deadline or
    /// was shut down — it is still called, with that failure, so that whatever the attempt holds is
    /// released; its verdict is then ignored.
    ///
    /// - Parameters:
    ///   - result: The response (any status the client accepts), or the failure: a transport error,
    ///     a status the client does not accept (`.unacceptableStatusCode`), or the decision of an
    ///     interceptor further in.
    ///   - call: The call the attempt belongs to.
    /// - Returns: What the call does next (see `HTTPInterceptorVerdict`).
    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict

    /// Observes how an attempt that went to the transport ended, whichever interceptor decided about
    /// it: called for every interceptor of `Configuration.interceptors`, after the decision round,
    /// and for an attempt cut short (cancelled, past the deadline, shut down) with that failure.
    /// What a tracer or a meter needs, since `didReceive` does not come for an attempt an interceptor
    /// closer to the network (the retry policy) decided about.
    ///
    /// - Parameters:
    ///   - result: The attempt's result as the interceptors saw it (after the plugins' `process`).
    ///   - call: The call; `call.attempt` is the attempt's number.
    func attemptDidEnd(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall)

    /// Observes the end of the call — delivered, failed or cancelled; a stream when its body ended —
    /// once, for every interceptor of `Configuration.interceptors`, also for a call that never
    /// reached this interceptor's `prepare` (a request that could not be built, a call refused by a
    /// shutdown or cancelled while held). Runs before the caller's completion.
    func callDidFinish(_ summary: HTTPCallSummary, for call: HTTPCall)
}

extension HTTPInterceptor {
    /// Asks the `URLRequest` requirement (an interceptor written before `HTTPTransportRequest` may
    /// implement it), whose default passes the request on.
    public func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        (FoundationPreparationBridge() as any FoundationPreparationBridging).prepare(
            request.urlRequest, on: self, for: call, completion: completion
        )
    }

    /// Passes the request on unchanged.
    @available(*, deprecated, message: "implement prepare(_:for:completion:) taking an HTTPTransportRequest")
    public func prepare(
        _ request: URLRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        completion(.proceed(request))
        return nil
    }

    /// Lets the result pass.
    public func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
        .proceed
    }

    /// Nothing to observe.
    public func attemptDidEnd(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) {}

    /// Nothing to observe.
    public func callDidFinish(_ summary: HTTPCallSummary, for call: HTTPCall) {}
}

/// What an interceptor decides before an attempt.
///
/// - Note: A value type; `Sendable`.
public enum HTTPInterceptorPreparation: Sendable {
    /// Pass this request on to the next interceptor, then the transport.
    case proceed(HTTPTransportRequest)
    /// Answer the attempt without the network (a cache hit): the interceptors before this one get
    /// it as the attempt's response.
    case answer(HTTPResponse)
    /// End the attempt with this error before sending (a refusal): the interceptors before this one
    /// get it as the attempt's failure. Nothing was sent, so the retry policy does not retry it.
    case fail(HTTPClientError)
}

extension HTTPInterceptorPreparation {
    /// Pass this Foundation request on: what interceptors written before `HTTPTransportRequest`
    /// answer. A request that cannot be converted (no URL, a body stream) fails the attempt with
    /// `.invalidRequest`.
    ///
    /// - Parameter request: The request to pass on.
    /// - Returns: `.proceed` with the converted request, or `.fail`.
    @available(*, deprecated, message: "pass an HTTPTransportRequest")
    public static func proceed(_ request: URLRequest) -> HTTPInterceptorPreparation {
        do {
            return .proceed(try HTTPTransportRequest(request))
        } catch {
            return .fail(error)
        }
    }
}

/// Reaches the deprecated `URLRequest` requirement from the default that must still call it,
/// without a deprecation warning on every build of this module.
private protocol FoundationPreparationBridging {
    func prepare(
        _ request: URLRequest, on interceptor: any HTTPInterceptor, for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable?
}

private struct FoundationPreparationBridge: FoundationPreparationBridging {
    @available(*, deprecated)
    func prepare(
        _ request: URLRequest, on interceptor: any HTTPInterceptor, for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        interceptor.prepare(request, for: call, completion: completion)
    }
}

/// What an interceptor decides after an attempt.
///
/// - Note: A value type; `Sendable`.
public enum HTTPInterceptorVerdict: Sendable {
    /// Nothing to decide: the interceptors further out decide (a success is delivered, a failure
    /// fails the call, if none of them decides otherwise).
    case proceed
    /// Go on with this result instead (a stored response for a 304, a stale answer for an error).
    case replace(Result<HTTPResponse, HTTPClientError>)
    /// Send the request again after this many seconds (clamped to 0...10^9), unless the call's
    /// deadline would pass first or the client is shutting down. Counts as an attempt of the retry
    /// policy.
    case retry(after: TimeInterval)
    /// Send the request again at once (after an unauthorized answer, with a fresh credential). Not
    /// counted against the retry policy.
    case replay
    /// Fail the call with this error; nothing further out is asked.
    case stop(HTTPClientError)
}
