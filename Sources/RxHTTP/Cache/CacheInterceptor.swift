import Foundation
import RxCore
import Synchronization

/// The client's `HTTPCache` as an interceptor (RFC 9111, a private cache; RFC 5861), first among the
/// built-ins, so that an answer from the store skips suspension, the retry policy, host protection
/// and authentication, and so that it sees the outcome the retry policy let out:
///
/// - before an attempt: a usable stored answer (fresh, or stale as the request allows) answers it
///   (`.hit`, `.stale`); one within `stale-while-revalidate` answers it while a revalidation goes
///   out behind it; a stale one with validators makes the request conditional (`If-None-Match`,
///   `If-Modified-Since`); `.onlyIfCached` without one fails with `.notCached`;
/// - after it: a 304 to a conditional request refreshes the stored headers and answers from the
///   store (`.revalidated`); a storable answer is stored (§3); a failure — 5xx, no connection, an
///   open circuit, a cooldown — is answered by a stale entry within `stale-if-error` (`.stale`);
///   an unsafe method's success invalidates its URL and the `Location`/`Content-Location` of the
///   same origin (§4.4).
///
/// Only GET answers are stored; streams, and requests that carry their own conditional or `Range`
/// headers, pass through untouched.
final class CacheInterceptor: ImmediateInterceptor, Sendable {
    /// What an attempt that went on to the network has to do when its answer comes.
    struct Pending: Sendable {
        let key: String
        /// The stored answer the request was made conditional on, or may fall back to.
        let stored: CachedResponse?
        let request: CacheControl
        let requestHeaders: HTTPHeaders
        let sentAt: Date
        /// Whether the answer may be stored (not `no-store` in the request).
        let mayStore: Bool
    }

    static let pendingKey = HTTPCallKey<Pending>("cache")
    /// The conditional request `prepareAtOnce` made, for `prepare` to pass on.
    static let conditionalKey = HTTPCallKey<HTTPTransportRequest>("cache: conditional request")

    let cache: HTTPCache
    /// The keys being revalidated behind a stale answer: one revalidation per key at a time.
    private let revalidating = Mutex<Set<String>>([])

    init(cache: HTTPCache) {
        self.cache = cache
    }

    func prepareAtOnce(_ request: HTTPTransportRequest, for call: HTTPCall) -> ImmediateDecision? {
        guard call.plan.stream == nil else { return .pass }
        let url = request.url
        let method = call.method
        guard method == .get else { return .pass }
        let headers = request.headers
        let read = RequestCacheHeaders(headers)
        if read.hasOwnConditions { return .pass }
        let key = Self.key(url)
        let control = read.control
        var policy = call.plan.cachePolicy
        if control.onlyIfCached { policy = .onlyIfCached }
        let now = call.now
        let stored = policy == .reload ? nil : cache.lookup(key, requestHeaders: headers)
        var pending = Pending(key: key, stored: nil, request: control, requestHeaders: headers, sentAt: now, mayStore: !control.noStore)
        switch policy {
        case .onlyIfCached:
            guard let stored else {
                return .decide(.fail(HTTPClientError(.notCached, message: "nothing stored for this request, which may not use the network", url: url, phase: .notSent)))
            }
            return .decide(.answer(stored.response(CacheFreshness(stored, now: now).isFresh ? .hit : .stale)))
        case .returnCacheElseLoad:
            if let stored {
                return .decide(.answer(stored.response(CacheFreshness(stored, now: now).isFresh ? .hit : .stale)))
            }
        case .reload:
            break
        case .useProtocol:
            if let stored, !control.noStore {
                let freshness = CacheFreshness(stored, now: now)
                if freshness.isUsable(for: control) {
                    return .decide(.answer(stored.response(freshness.isFresh ? .hit : .stale)))
                }
                if freshness.allowsStaleWhileRevalidate, !control.noCache {
                    revalidateBehind(call, request: request, stored: stored, key: key)
                    return .decide(.answer(stored.response(.stale)))
                }
                pending = Pending(key: key, stored: stored, request: control, requestHeaders: headers, sentAt: now, mayStore: true)
                call.setValue(pending, for: Self.pendingKey)
                // A changed request goes through `prepare` (the at-once path passes it on as it was).
                call.setValue(Self.conditional(request, on: stored), for: Self.conditionalKey)
                return nil
            }
        }
        call.setValue(pending, for: Self.pendingKey)
        return .pass
    }

    func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        if let conditional = call.takeValue(for: Self.conditionalKey) {
            completion(.proceed(conditional))
        } else if let decision = prepareAtOnce(request, for: call) {
            completion(decision.preparation(passing: request))
        } else {
            completion(.proceed(call.takeValue(for: Self.conditionalKey) ?? request))
        }
        return nil
    }

    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
        if call.method.isUnsafeForCaches, let url = call.url {
            invalidateAfterUnsafe(result, url: url)
            return .proceed
        }
        guard let pending = call.takeValue(for: Self.pendingKey) else { return .proceed }
        let now = call.now
        switch result {
        case .success(let response):
            if response.statusCode == 304, let stored = pending.stored {
                return .replace(.success(refresh(stored, with: response.headers, pending: pending, now: now)))
            }
            store(response, pending: pending, now: now)
            return .proceed
        case .failure(let error):
            if error.statusCode == 304, let stored = pending.stored {
                return .replace(.success(refresh(stored, with: error.headers ?? [:], pending: pending, now: now)))
            }
            if let stored = pending.stored, Self.isErrorAStaleAnswerMayCover(error),
               CacheFreshness(stored, now: now).allowsStaleIfError(request: pending.request) {
                return .replace(.success(stored.response(.stale)))
            }
            return .proceed
        }
    }

    // MARK: Revalidating behind a stale answer

    /// RFC 5861 §3: the stale answer goes out now; a conditional request, a call of the client's
    /// own after this interceptor, refreshes the entry behind it.
    private func revalidateBehind(_ call: HTTPCall, request: HTTPTransportRequest, stored: CachedResponse, key: String) {
        guard revalidating.withLock({ $0.insert(key).inserted }) else { return }
        let headers = request.headers
        let pending = Pending(key: key, stored: stored, request: CacheControl(headers: headers), requestHeaders: headers, sentAt: call.now, mayStore: true)
        var plan = call.plan
        plan.request = Self.conditional(request, on: stored)
        let client = call.client
        client.startInternalCall(plan, after: .afterCache) { [self] result in
            defer { revalidating.withLock { _ = $0.remove(key) } }
            let now = client.clock.now
            switch result {
            case .success(let response) where response.statusCode == 304:
                _ = refresh(stored, with: response.headers, pending: pending, now: now)
            case .success(let response):
                store(response, pending: pending, now: now)
            case .failure(let error) where error.statusCode == 304:
                _ = refresh(stored, with: error.headers ?? [:], pending: pending, now: now)
            case .failure:
                break
            }
        }
    }

    // MARK: Storing

    /// Stores `response` if RFC 9111 §3 allows it.
    func store(_ response: HTTPResponse, pending: Pending, now: Date) {
        guard pending.mayStore, let entry = Self.storable(response, pending: pending, now: now) else { return }
        cache.store(entry, for: pending.key)
    }

    /// The entry to store for `response`, or nil when it may not (or need not) be stored (§3): a
    /// final status the cache understands, no `no-store`, no `Vary: *`, and something that makes it
    /// reusable — explicit freshness, a validator, or heuristic freshness (§4.2.2).
    static func storable(_ response: HTTPResponse, pending: Pending, now: Date) -> CachedResponse? {
        let control = CacheControl(headers: response.headers)
        guard response.cacheStatus == .network, CacheFreshness.heuristicallyCacheable.contains(response.statusCode)
            || response.headers.contains("Expires") || control.maxAge != nil
        else { return nil }
        guard !control.noStore else { return nil }
        let names = CachedResponse.varyNames(response.headers)
        guard !names.contains("*") else { return nil }
        // §3.5: a request that carries its own credentials is stored only when the answer says a
        // shared cache could store it. (The client's authenticator signs after the cache: its
        // calls are stored, which a private cache may do.)
        if pending.requestHeaders.contains("Authorization"),
           !(control.isPublic || control.mustRevalidate || control.sharedMaxAge != nil) {
            return nil
        }
        let hasValidator = response.headers.contains("ETag") || response.headers.contains("Last-Modified")
        let hasFreshness = control.maxAge != nil || response.headers.contains("Expires")
        guard hasValidator || hasFreshness else { return nil }
        return CachedResponse(
            statusCode: response.statusCode, headers: response.headers, body: response.body, url: response.url,
            requestTime: pending.sentAt, responseTime: now,
            varyValues: CachedResponse.values(of: names, in: pending.requestHeaders)
        )
    }

    /// A 304 answered the conditional request: the stored answer with the 304's headers, stored
    /// again and delivered (§4.3.4).
    private func refresh(_ stored: CachedResponse, with headers: HTTPHeaders, pending: Pending, now: Date) -> HTTPResponse {
        let updated = stored.updated(with: headers, requestTime: pending.sentAt, responseTime: now)
        if pending.mayStore, !updated.parsed.control.noStore {
            cache.store(updated, for: pending.key)
        } else {
            cache.invalidate(pending.key)
        }
        return updated.response(.revalidated)
    }

    /// §4.4: a successful unsafe request invalidates its URL, and the URLs in `Location` and
    /// `Content-Location` when they share its origin.
    private func invalidateAfterUnsafe(_ result: Result<HTTPResponse, HTTPClientError>, url: URL) {
        guard case .success(let response) = result, (200..<400).contains(response.statusCode) else { return }
        cache.invalidate(Self.key(url))
        for name in ["Location", "Content-Location"] {
            guard let value = response.value(forHTTPHeaderField: name), value.utf8.count <= 8_192,
                  let target = URL(string: value, relativeTo: url)?.absoluteURL,
                  target.scheme?.lowercased() == url.scheme?.lowercased(), target.host?.lowercased() == url.host?.lowercased(),
                  target.port == url.port else { continue }
            cache.invalidate(Self.key(target))
        }
    }

    // MARK: Requests

    /// The cache key of a GET for `url`: the URL without its fragment.
    static func key(_ url: URL) -> String {
        let text = url.absoluteString
        guard let hash = text.utf8.firstIndex(of: UInt8(ascii: "#")) else { return text }
        return String(text[..<hash])
    }

    /// `request` made conditional on `stored`'s validators (§4.3.1).
    static func conditional(_ request: HTTPTransportRequest, on stored: CachedResponse) -> HTTPTransportRequest {
        var conditional = request
        if let etag = stored.parsed.etag {
            conditional.setValue(etag, forHTTPHeaderField: "If-None-Match")
        }
        if let lastModified = stored.parsed.lastModifiedText {
            conditional.setValue(lastModified, forHTTPHeaderField: "If-Modified-Since")
        }
        return conditional
    }

    /// The failures a `stale-if-error` answer stands in for (RFC 5861 §4): the server failing
    /// (5xx), no answer (connection, time-out, garbage), or our protection refusing to send (an open
    /// circuit, a cooldown, a spent budget) — not a cancel, a bad request or a 4xx.
    static func isErrorAStaleAnswerMayCover(_ error: HTTPClientError) -> Bool {
        switch error.code {
        case .transport, .timedOut, .invalidResponse, .circuitOpen, .rejected, .retryBudgetExhausted:
            return true
        case .unacceptableStatusCode:
            return (error.statusCode ?? 0) >= 500
        default:
            return false
        }
    }
}

extension HTTPMethod {
    /// Methods whose success invalidates stored answers for their URL (RFC 9111 §4.4).
    var isUnsafeForCaches: Bool {
        !["GET", "HEAD", "OPTIONS", "TRACE"].contains(rawValue)
    }
}

/// What the cache reads from a request's headers, in one pass over them: its `Cache-Control` (or
/// `Pragma`), and whether the caller made it conditional or partial itself (then its answer is
/// theirs, and the cache stays out of it).
struct RequestCacheHeaders {
    private(set) var control = CacheControl()
    private(set) var hasOwnConditions = false

    init(_ headers: HTTPHeaders) {
        var cacheControl = ""
        var pragma: String?
        for (name, value) in headers {
            switch name.utf8.count {
            case 13:
                if HeaderFields.equalsIgnoringASCIICase(name, "Cache-Control") {
                    cacheControl += cacheControl.isEmpty ? value : "," + value
                } else if HeaderFields.equalsIgnoringASCIICase(name, "If-None-Match") {
                    hasOwnConditions = true
                }
            case 6:
                if HeaderFields.equalsIgnoringASCIICase(name, "Pragma") { pragma = value }
            case 17:
                if HeaderFields.equalsIgnoringASCIICase(name, "If-Modified-Since") { hasOwnConditions = true }
            case 8:
                if HeaderFields.equalsIgnoringASCIICase(name, "If-Match") || HeaderFields.equalsIgnoringASCIICase(name, "If-Range") {
                    hasOwnConditions = true
                }
            case 19:
                if HeaderFields.equalsIgnoringASCIICase(name, "If-Unmodified-Since") { hasOwnConditions = true }
            case 5:
                if HeaderFields.equalsIgnoringASCIICase(name, "Range") { hasOwnConditions = true }
            default:
                break
            }
        }
        if !cacheControl.isEmpty {
            control = CacheControl(cacheControl)
        } else if let pragma, CacheControl(pragma).noCache {
            control.noCache = true
        }
    }
}
