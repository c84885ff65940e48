import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Requests that must happen, kept on disk until each has its one outcome — across crashes,
/// restarts and network outages.
///
/// `client.rx.enqueue(_:in:)` stores a request (and the `Idempotency-Key` it will carry on every
/// attempt) and succeeds only once it is on disk: the file and the directory flushed.
/// `client.rx.deliver(_:)` sends the entries through the client — retry policy, host protection,
/// authentication, the quota — waits and sends again while the failure is one that may pass (the
/// network, a 5xx, 408, 425, 429, an open circuit), records each outcome on disk before handing it
/// over, and removes the entry after. Whatever instant the process dies at, every entry still
/// there is sent again with its key by the next `deliver`.
///
/// On disk: a directory (mode 0700) with one file per entry (`<id>.entry`) and per recorded outcome
/// (`<id>.outcome`), each written whole or not at all and checked when read (`OutboxRecord`: magic,
/// version, length, checksum); `.lock` holds the outbox for one instance at a time (an advisory
/// lock the system releases when the process dies). A file that is not a whole record — a stranger's,
/// a flipped bit — is moved to `skipped/`, listed in `skippedRecords`, and never sent.
///
/// The stored request is the one the client built before its interceptors: the client's default
/// headers and the request's own are in it (the file is readable by its owner only), credentials
/// an authenticator or access-token plugin adds are not: they are added when it is sent.
///
/// Threading: every member may be called from any thread; files are written on the outbox's own
/// serial queue.
public final class Outbox: Sendable {
    /// A file of the directory that is not a whole record, set aside (in `skipped/`) and never sent.
    public struct SkippedRecord: Sendable, Hashable, CustomStringConvertible {
        /// The file's name, as it now is in the `skipped` folder.
        public let fileName: String
        /// What is wrong with it.
        public let reason: String

        public var description: String { "\(fileName): \(reason)" }
    }

    /// The largest `maxEntries`.
    public static let entryLimit = 10_000_000
    /// The smallest and largest `maxBytes`.
    public static let byteLimits = 4_096...(1 << 40)

    /// The outbox's directory.
    public let directory: URL
    /// The most entries it holds; `enqueue` fails past it.
    public let maxEntries: Int
    /// The most bytes its entry files take; `enqueue` fails past it.
    public let maxBytes: Int

    struct Indexed: Sendable {
        var entry: OutboxEntry
        var sequence: UInt64
        var bytes: Int
        /// `scheme://host:port`: entries of one origin are delivered in order.
        var origin: String
        /// The outcome recorded for it and not yet handed over (or not known to be).
        var recordedOutcome: StoredOutcome?
        /// Whether that outcome was on disk when the outbox was opened: an earlier process may have
        /// handed it over before it died.
        var recordedBeforeStart = false
    }

    private struct State {
        var entries: [UUID: Indexed] = [:]
        var totalBytes = 0
        /// Entries and bytes promised to writes in progress.
        var reservedEntries = 0
        var reservedBytes = 0
        var nextSequence: UInt64 = 1
        var skipped: [SkippedRecord] = []
        /// The one delivery that takes new entries as they are stored.
        var listener: (id: UInt64, onStored: @Sendable (Indexed) -> Void)?
        var nextListenerID: UInt64 = 0
        var lockDescriptor: Int32
        /// Files to write and entries to remove at the next flush of the directory.
        var writes: [PendingWrite] = []
        var removals: [UUID] = []
        var flushScheduled = false
    }

    private struct PendingWrite {
        let path: String
        let data: Data
        let done: @Sendable (AtomicFile.Failure?) -> Void
    }

    private let state: Mutex<State>
    /// Every write and removal, in order.
    let queue: DispatchQueue

    /// Opens (or creates) the outbox in `directory` and reads what an earlier process left there.
    ///
    /// - Parameters:
    ///   - directory: Its directory, created (mode 0700) if missing. One instance, in one process,
    ///     holds it at a time.
    ///   - maxEntries: The most entries (1 … `entryLimit`); default 100,000.
    ///   - maxBytes: The most bytes of entry files (`byteLimits`); default 1 GiB.
    /// - Throws: `HTTPClientError` `.invalidRequest` for a bound out of range; `.fileSystem` when the
    ///   directory cannot be created or read, or another instance (in this process or another)
    ///   holds it.
    public init(directory: URL, maxEntries: Int = 100_000, maxBytes: Int = 1 << 30) throws(HTTPClientError) {
        guard (1...Self.entryLimit).contains(maxEntries) else {
            throw HTTPClientError(.invalidRequest, message: "maxEntries must be in 1...\(Self.entryLimit)", phase: .notSent)
        }
        guard Self.byteLimits.contains(maxBytes) else {
            throw HTTPClientError(.invalidRequest, message: "maxBytes must be in \(Self.byteLimits)", phase: .notSent)
        }
        self.directory = directory.standardizedFileURL
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        let queue = DispatchQueue(label: "RxHTTP.Outbox")
        queue.setSpecific(key: Self.queueKey, value: true)
        self.queue = queue
        let path = self.directory.path
        do {
            try AtomicFile.makeDirectory(path)
        } catch {
            throw HTTPClientError(.fileSystem, message: "cannot create the outbox's directory", underlying: error, phase: .notSent)
        }
        let lock = open(path + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard lock >= 0 else {
            throw HTTPClientError(.fileSystem, message: "cannot open the outbox's lock file (errno \(errno))", phase: .notSent)
        }
        guard flock(lock, LOCK_EX | LOCK_NB) == 0 else {
            closeDescriptor(lock)
            throw HTTPClientError(.fileSystem, message: "the outbox is open in another instance or process", phase: .notSent)
        }
        let loaded: OutboxDirectory.Contents
        do {
            loaded = try OutboxDirectory.load(path)
        } catch {
            closeDescriptor(lock)
            throw HTTPClientError(.fileSystem, message: "cannot read the outbox's directory", underlying: error, phase: .notSent)
        }
        var initial = State(lockDescriptor: lock)
        for indexed in loaded.entries {
            initial.entries[indexed.entry.id] = indexed
            initial.totalBytes += indexed.bytes
            initial.nextSequence = max(initial.nextSequence, indexed.sequence &+ 1)
        }
        initial.skipped = loaded.skipped
        state = Mutex(initial)
    }

    deinit {
        // Every write the queue still holds retains the outbox: none is left.
        let descriptor = state.withLock { $0.lockDescriptor }
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }

    /// Releases the directory for another instance once the writes in progress are done; the
    /// outbox refuses new entries after. Entries stay on disk. Releasing the last reference closes
    /// it too.
    public func close() {
        let descriptor = state.withLock { state -> Int32 in
            defer { state.lockDescriptor = -1 }
            return state.lockDescriptor
        }
        guard descriptor >= 0 else { return }
        // After the writes already queued, which the lock still covers.
        if DispatchQueue.getSpecific(key: Self.queueKey) == nil {
            queue.sync { closeDescriptor(descriptor) }
        } else {
            queue.async { closeDescriptor(descriptor) }
        }
    }

    private static let queueKey = DispatchSpecificKey<Bool>()

    /// How many entries wait for their outcome (or for it to be handed over).
    public var depth: Int {
        state.withLock { $0.entries.count }
    }

    /// The bytes their files take.
    public var byteCount: Int {
        state.withLock { $0.totalBytes }
    }

    /// When the oldest waiting entry was enqueued; nil when the outbox is empty.
    public var oldestEntryDate: Date? {
        state.withLock { state in state.entries.values.min { $0.sequence < $1.sequence }?.entry.enqueuedAt }
    }

    /// How long the oldest waiting entry has waited, in seconds at `now`; nil when the outbox is
    /// empty.
    public func oldestEntryAge(now: Date = Date()) -> TimeInterval? {
        oldestEntryDate.map { max(0, now.timeIntervalSince($0)) }
    }

    /// The waiting entries, oldest first.
    public var entries: [OutboxEntry] {
        state.withLock { state in state.entries.values.sorted { $0.sequence < $1.sequence }.map(\.entry) }
    }

    /// The files set aside as not whole records, since the outbox was opened.
    public var skippedRecords: [SkippedRecord] {
        state.withLock { $0.skipped }
    }

    // MARK: Storing (the client's enqueue)

    /// Stores `stored` (its sequence assigned here) and calls `completion` on the outbox's queue
    /// once it is durable, or with why it is not stored: `.rejected` when full, `.fileSystem`.
    func append(_ entry: StoredEntry, completion: @escaping @Sendable (Result<OutboxEntry, HTTPClientError>) -> Void) {
        var sequenced = entry
        // A sequence refused below leaves a gap, which the order does not mind.
        sequenced.sequence = state.withLock { state in
            defer { state.nextSequence &+= 1 }
            return state.nextSequence
        }
        let stored = sequenced
        let data: Data
        do {
            data = try OutboxRecord.entry(stored).encoded()
        } catch {
            return queue.async { completion(.failure(HTTPClientError(.invalidRequest, message: "the entry \(error)", phase: .notSent))) }
        }
        let refusal = state.withLock { state -> HTTPClientError? in
            guard state.lockDescriptor >= 0 else {
                return HTTPClientError(.fileSystem, message: "the outbox is closed", phase: .notSent)
            }
            guard state.entries.count + state.reservedEntries < maxEntries,
                  state.totalBytes + state.reservedBytes + data.count <= maxBytes else {
                return HTTPClientError(
                    .rejected, message: "the outbox is full (\(maxEntries) entries, \(maxBytes) bytes)", phase: .notSent
                )
            }
            state.reservedEntries += 1
            state.reservedBytes += data.count
            return nil
        }
        if let refusal {
            return queue.async { completion(.failure(refusal)) }
        }
        let path = OutboxDirectory.entryPath(directory.path, stored.id)
        flush(writing: data, to: path) { [self] written in
            let failure = written.map {
                HTTPClientError(.fileSystem, message: "cannot store the entry: \($0.what) failed (errno \($0.errno))", phase: .notSent)
            }
            let indexed = Indexed(
                entry: OutboxEntry(stored), sequence: stored.sequence, bytes: data.count, origin: OutboxDirectory.origin(of: stored.url)
            )
            let listener = state.withLock { state -> (@Sendable (Indexed) -> Void)? in
                state.reservedEntries -= 1
                state.reservedBytes -= data.count
                guard failure == nil else { return nil }
                state.entries[stored.id] = indexed
                state.totalBytes += indexed.bytes
                return state.listener?.onStored
            }
            if let failure {
                completion(.failure(failure))
            } else {
                completion(.success(indexed.entry))
                listener?(indexed)
            }
        }
    }

    // MARK: Delivering (the client's deliver)

    /// Makes `onStored` the one listener for entries stored from now on and returns those stored
    /// already, oldest first; nil when another delivery listens.
    func attach(_ onStored: @escaping @Sendable (Indexed) -> Void) -> (id: UInt64, entries: [Indexed])? {
        state.withLock { state in
            guard state.listener == nil else { return nil }
            state.nextListenerID += 1
            state.listener = (state.nextListenerID, onStored)
            return (state.nextListenerID, state.entries.values.sorted { $0.sequence < $1.sequence })
        }
    }

    /// Ends the listening of delivery `id`.
    func detach(_ id: UInt64) {
        state.withLock { state in
            if state.listener?.id == id { state.listener = nil }
        }
    }

    /// The stored request of entry `id`, read and checked again; nil (the file set aside and
    /// reported, the entry forgotten) when it is no longer a whole record.
    func storedEntry(_ id: UUID) -> StoredEntry? {
        let path = OutboxDirectory.entryPath(directory.path, id)
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        do {
            if case .entry(let stored) = try OutboxRecord.decode(data), stored.id == id { return stored }
            setAside(id, reason: "not the entry it was")
        } catch {
            setAside(id, reason: error.description)
        }
        return nil
    }

    /// Records `outcome` durably (on the outbox's queue; `completion` there too).
    func record(_ outcome: StoredOutcome, completion: @escaping @Sendable (HTTPClientError?) -> Void) {
        let data: Data
        do {
            data = try OutboxRecord.outcome(outcome).encoded()
        } catch {
            return queue.async { completion(HTTPClientError(.fileSystem, message: "cannot record an outcome: \(error)")) }
        }
        flush(writing: data, to: OutboxDirectory.outcomePath(directory.path, outcome.id)) { [self] failure in
            if let failure {
                return completion(HTTPClientError(.fileSystem, message: "cannot record an outcome: \(failure.what) failed (errno \(failure.errno))"))
            }
            // A later delivery in this process hands it over without sending the entry again.
            state.withLock { $0.entries[outcome.id]?.recordedOutcome = outcome }
            completion(nil)
        }
    }

    /// Removes entry `id` and its outcome, durably, at the next flush.
    func remove(_ id: UUID) {
        schedule { $0.removals.append(id) }
    }

    // MARK: Flushing

    /// Writes `data` to `path` whole (a temporary file, flushed, renamed) at the next flush, and
    /// calls `done` on the outbox's queue once the directory is flushed too, or with the failure.
    private func flush(writing data: Data, to path: String, done: @escaping @Sendable (AtomicFile.Failure?) -> Void) {
        schedule { $0.writes.append(PendingWrite(path: path, data: data, done: done)) }
    }

    private func schedule(_ change: (inout State) -> Void) {
        let first = state.withLock { state -> Bool in
            change(&state)
            defer { state.flushScheduled = true }
            return !state.flushScheduled
        }
        if first { queue.async { [self] in flushPending() } }
    }

    /// Everything queued since the last flush, with one flush of the directory for all: what
    /// arrives while the disk works waits for the next, so that a busy outbox flushes its
    /// directory once per batch, not once per file.
    private func flushPending() {
        let (writes, removals) = state.withLock { state -> ([PendingWrite], [UUID]) in
            defer {
                state.writes = []
                state.removals = []
                state.flushScheduled = false
            }
            return (state.writes, state.removals)
        }
        var failures: [AtomicFile.Failure?] = []
        failures.reserveCapacity(writes.count)
        for write in writes {
            do throws(AtomicFile.Failure) {
                try AtomicFile.write(write.data, to: write.path, durable: true, syncingDirectory: false)
                failures.append(nil)
            } catch {
                failures.append(error)
            }
        }
        for id in removals {
            // The entry first: a crash between the two leaves an outcome without its entry, which
            // the next start deletes, never an entry without the outcome it had.
            _ = unlink(OutboxDirectory.entryPath(directory.path, id))
            _ = unlink(OutboxDirectory.outcomePath(directory.path, id))
        }
        AtomicFile.syncDirectory(directory.path)
        if !removals.isEmpty {
            state.withLock { state in
                for id in removals {
                    if let removed = state.entries.removeValue(forKey: id) { state.totalBytes -= removed.bytes }
                }
            }
        }
        for (write, failure) in zip(writes, failures) {
            write.done(failure)
        }
    }

    private func setAside(_ id: UUID, reason: String) {
        let name = OutboxDirectory.entryName(id)
        let moved = OutboxDirectory.setAside(directory.path, name)
        state.withLock { state in
            if let removed = state.entries.removeValue(forKey: id) { state.totalBytes -= removed.bytes }
            state.skipped.append(SkippedRecord(fileName: moved ?? name, reason: reason))
        }
    }
}

/// `close(2)`, named apart from `Outbox.close()`.
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(descriptor)
    #else
    _ = Darwin.close(descriptor)
    #endif
}
