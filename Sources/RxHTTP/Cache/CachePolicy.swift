/// How one request uses the client's `HTTPCache` (`Request.cachePolicy`). Without a cache
/// (`Configuration(cache: nil)`, the default) every policy loads from the network.
///
/// - Note: A value type; `Sendable`.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111: a fresh stored answer is used, a stale one is revalidated (`If-None-Match`,
    /// `If-Modified-Since`), `stale-while-revalidate` and `stale-if-error` are honoured, and the
    /// answer is stored as its headers allow. The default.
    case useProtocol
    /// Loads from the network whatever is stored (the answer is stored as its headers allow).
    case reload
    /// Uses a stored answer however old (marked `.stale` if it is), and loads only without one.
    case returnCacheElseLoad
    /// Uses a stored answer however old, never the network: without one the call fails with
    /// `.notCached`.
    case onlyIfCached
}

/// Where a delivered answer came from (`DecodedResponse.cacheStatus`, `HTTPResponse.cacheStatus`,
/// and the `.completed` event's `cacheStatus`).
///
/// - Note: A value type; `Sendable`.
public enum CacheStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// From the network, not from the cache.
    case network
    /// From the cache, fresh: nothing was sent.
    case hit
    /// From the cache after the server answered 304 Not Modified to a conditional request.
    case revalidated
    /// From the cache, past its freshness: within `stale-while-revalidate` (a revalidation went out
    /// behind it) or `stale-if-error` (the network failed), or asked for by the request's policy.
    case stale

    /// The status's raw value, as `hit`.
    public var description: String {
        rawValue
    }
}
