import Foundation
import Synchronization

/// A private HTTP cache (RFC 9111) for a client — `HTTPClient.Configuration(cache:)` — in memory,
/// and on disk in a directory of the daemon's so that it survives a restart.
///
/// ```swift
/// let cache = HTTPCache(directory: stateDirectory.appendingPathComponent("http-cache"),   // nil: memory only
///                       maxDiskBytes: 256 << 20, maxMemoryBytes: 16 << 20)
/// let client = HTTPClient(baseURL: api, configuration: .init(cache: cache))
/// ```
///
/// What it stores, and when it answers, is the client's cache interceptor's to decide (see
/// <doc:CachingAndCoalescing>); this type keeps the answers: GET responses by URL, each URL with up to 8 variants
/// (`Vary`). Both stores are bounded in bytes and evict the least recently used first. On disk each
/// URL is one file, written to a temporary file, flushed and renamed into place, and checked
/// (magic, lengths, checksum) when read: a torn or corrupt file — a crash mid-write, a full disk, a
/// stranger's file — is deleted and counts as a miss, never a crash. A directory that cannot be
/// used leaves the cache in memory only (`diskError` says why).
///
/// - Note: Thread-safe; one cache may serve several clients. Disk writes happen on a queue of the
///   cache's own, after the answer is delivered.
public final class HTTPCache: Sendable {
    /// The largest number of variants kept for one URL.
    static let maxVariants = 8

    private let memory: MemoryCacheStore
    private let disk: DiskCacheStore?
    /// Why the directory is not used, if it is not.
    public let diskError: (any Error)?

    /// Creates a cache.
    ///
    /// - Parameters:
    ///   - directory: Where answers are kept across restarts (created with mode 0700 if missing);
    ///     nil keeps them in memory only.
    ///   - maxDiskBytes: The most bytes of files in `directory`; clamped to 0...1 TiB. Default
    ///     256 MiB. An answer larger than an eighth of it is not written.
    ///   - maxMemoryBytes: The most bytes kept in memory; clamped to 0...64 GiB. Default 16 MiB. An
    ///     answer larger than an eighth of it is kept on disk only.
    public init(directory: URL?, maxDiskBytes: Int = 256 << 20, maxMemoryBytes: Int = 16 << 20) {
        memory = MemoryCacheStore(maxBytes: min(max(0, maxMemoryBytes), 64 << 30))
        if let directory {
            do {
                disk = try DiskCacheStore(directory: directory, maxBytes: min(max(0, maxDiskBytes), 1 << 40))
                diskError = nil
            } catch {
                disk = nil
                diskError = error
            }
        } else {
            disk = nil
            diskError = nil
        }
    }

    /// Bytes kept in memory now.
    public var memoryBytes: Int {
        memory.totalBytes
    }

    /// Bytes of files on disk now (0 without a directory).
    public var diskBytes: Int {
        disk?.totalBytes ?? 0
    }

    /// Forgets every stored answer, in memory and on disk.
    public func removeAll() {
        memory.removeAll()
        disk?.removeAll()
    }

    /// Waits until every disk write so far is done (for tests and for a clean exit).
    public func flush() {
        disk?.flush()
    }

    // MARK: For the interceptor

    /// The variants stored for `key`: from memory, else from disk (then kept in memory).
    func variants(for key: String) -> [CachedResponse] {
        if let found = memory.variants(for: key) { return found }
        guard let disk, let found = disk.variants(for: key), !found.isEmpty else { return [] }
        memory.store(found, for: key)
        return found
    }

    /// The stored variant a request with `requestHeaders` may use (§4.1), the newest first.
    func lookup(_ key: String, requestHeaders: HTTPHeaders) -> CachedResponse? {
        variants(for: key).filter { $0.matches(requestHeaders) }.max { $0.responseTime < $1.responseTime }
    }

    /// Stores `response` for `key`, replacing the variant with the same `Vary` values.
    func store(_ response: CachedResponse, for key: String) {
        let stored = self.variants(for: key)
        if let same = stored.first(where: { $0.varyValues == response.varyValues }), same.statusCode == response.statusCode,
           same.headers == response.headers, same.body == response.body,
           abs(same.responseTime.timeIntervalSince(response.responseTime)) < 1 {
            // The same answer again (coalesced callers each store what they got): nothing to write.
            return
        }
        var variants = stored.filter { $0.varyValues != response.varyValues }
        variants.append(response)
        if variants.count > Self.maxVariants {
            variants.sort { $0.responseTime > $1.responseTime }
            variants.removeLast(variants.count - Self.maxVariants)
        }
        memory.store(variants, for: key)
        disk?.write(variants, for: key)
    }

    /// Forgets every variant of `key` (§4.4).
    func invalidate(_ key: String) {
        memory.remove(key)
        disk?.remove(key)
    }
}

/// The answers kept in memory: variants by key, least recently used evicted first.
final class MemoryCacheStore: Sendable {
    private struct Entry {
        var variants: [CachedResponse]
        var bytes: Int
        var lastUse: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var totalBytes = 0
        var clock: UInt64 = 0
    }

    private let maxBytes: Int
    private let state = Mutex(State())

    init(maxBytes: Int) {
        self.maxBytes = maxBytes
    }

    var totalBytes: Int {
        state.withLock { $0.totalBytes }
    }

    func variants(for key: String) -> [CachedResponse]? {
        state.withLock { state in
            guard var entry = state.entries[key] else { return nil }
            state.clock += 1
            entry.lastUse = state.clock
            state.entries[key] = entry
            return entry.variants
        }
    }

    func store(_ variants: [CachedResponse], for key: String) {
        let bytes = variants.reduce(key.utf8.count) { $0 + $1.size }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.totalBytes -= old.bytes }
            // One answer may not take more than an eighth of the store.
            guard bytes <= maxBytes / 8 else { return }
            state.clock += 1
            state.entries[key] = Entry(variants: variants, bytes: bytes, lastUse: state.clock)
            state.totalBytes += bytes
            while state.totalBytes > maxBytes, let oldest = state.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                state.entries.removeValue(forKey: oldest.key)
                state.totalBytes -= oldest.value.bytes
            }
        }
    }

    func remove(_ key: String) {
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.totalBytes -= old.bytes }
        }
    }

    func removeAll() {
        state.withLock { $0 = State() }
    }
}
