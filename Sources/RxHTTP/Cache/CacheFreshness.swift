import Foundation

/// How fresh a stored response is (RFC 9111 §4.2), and what its directives allow.
struct CacheFreshness: Sendable {
    /// Statuses a cache may give heuristic freshness to (RFC 9110 §15.1: "heuristically cacheable").
    static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]
    /// The longest heuristic freshness given: a day, whatever the Last-Modified.
    static let maxHeuristicLifetime: TimeInterval = 86_400

    let control: CacheControl
    /// Seconds the response is fresh for (§4.2.1).
    let lifetime: TimeInterval
    /// Its age now (§4.2.3).
    let age: TimeInterval
    /// Whether `lifetime` came from the heuristic (§4.2.2) rather than the server.
    let isHeuristic: Bool

    init(_ stored: CachedResponse, now: Date) {
        let parsed = stored.parsed
        control = parsed.control
        let date = parsed.date
        // §4.2.1: max-age, then Expires - Date (an invalid Expires is in the past), then heuristics.
        if let maxAge = control.maxAge {
            lifetime = maxAge
            isHeuristic = false
        } else if let expires = parsed.expires {
            lifetime = max(0, expires.timeIntervalSince(date ?? stored.responseTime))
            isHeuristic = false
        } else if let lastModified = parsed.lastModified,
                  Self.heuristicallyCacheable.contains(stored.statusCode) || control.isPublic {
            // §4.2.2: a fraction (10%) of the time since the last modification, when the response
            // has no explicit expiration.
            let base = date ?? stored.responseTime
            lifetime = min(max(0, base.timeIntervalSince(lastModified)) / 10, Self.maxHeuristicLifetime)
            isHeuristic = true
        } else {
            lifetime = 0
            isHeuristic = false
        }
        // §4.2.3
        let apparentAge = max(0, stored.responseTime.timeIntervalSince(date ?? stored.responseTime))
        let responseDelay = max(0, stored.responseTime.timeIntervalSince(stored.requestTime))
        let correctedInitialAge = max(apparentAge, parsed.age + responseDelay)
        let residentTime = max(0, now.timeIntervalSince(stored.responseTime))
        age = correctedInitialAge + residentTime
    }

    /// Whether it may be used without asking the server, for a request with `request` directives
    /// (§4.2, §5.2.1): fresh (also with `min-fresh`), within the request's `max-age`, and neither
    /// side says `no-cache`; or stale within the request's `max-stale` (never past
    /// `must-revalidate`).
    func isUsable(for request: CacheControl) -> Bool {
        guard !control.noCache, !request.noCache else { return false }
        if let maxAge = request.maxAge, age > maxAge { return false }
        let remaining = lifetime - age
        if let minFresh = request.minFresh, remaining < minFresh { return false }
        if remaining > 0 { return true }
        guard let maxStale = request.maxStale, !control.mustRevalidate else { return false }
        return -remaining <= maxStale
    }

    /// Whether it is fresh, whatever the request asks.
    var isFresh: Bool {
        lifetime > age
    }

    /// Seconds past its freshness; 0 while fresh.
    var staleness: TimeInterval {
        max(0, age - lifetime)
    }

    /// Whether it may be served stale while a revalidation goes out behind it (RFC 5861 §3).
    var allowsStaleWhileRevalidate: Bool {
        guard !control.mustRevalidate, !control.noCache, let window = control.staleWhileRevalidate else { return false }
        return staleness <= window
    }

    /// Whether it may be served stale because the network failed (RFC 5861 §4), the response's
    /// `stale-if-error` or the request's.
    func allowsStaleIfError(request: CacheControl) -> Bool {
        guard !control.mustRevalidate else { return false }
        guard let window = [control.staleIfError, request.staleIfError].compactMap({ $0 }).max() else { return false }
        return staleness <= window
    }

    static func date(_ name: String, in headers: HTTPHeaders) -> Date? {
        guard let text = headers[name], text.utf8.count <= 64 else { return nil }
        return HTTPDate.parse(Array(text.utf8))
    }
}
