import Foundation
@_spi(RxNetworkKitInternals) import RxCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An `Outbox` in a directory of this host: one checked file per entry and per recorded outcome,
/// written whole or not at all, flushed in batches that share one flush of the directory; `.lock`
/// holds the directory for one instance at a time; an index of the entries in memory.
final class DirectoryOutboxStore: OutboxStore {
    let directory: URL
    let maxEntries: Int
    let maxBytes: Int

    typealias Indexed = Outbox.Indexed

    private struct State {
        var entries: [UUID: Indexed] = [:]
        var totalBytes = 0
        /// Entries and bytes promised to writes in progress.
        var reservedEntries = 0
        var reservedBytes = 0
        var nextSequence: UInt64 = 1
        var skipped: [Outbox.SkippedRecord] = []
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

    private let state: LockedState<State>
    /// Every write and removal, in order.
    let queue: DispatchQueue

    /// Opens (or creates) the directory and reads what an earlier process left there; see
    /// `Outbox.init(directory:maxEntries:maxBytes:)`.
    init(directory: URL, maxEntries: Int, maxBytes: Int) throws(HTTPClientError) {
        self.directory = directory
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
        state = LockedState.make(initial)
    }

    deinit {
        // Every write the queue still holds retains the outbox: none is left.
        let descriptor = state.withLock { $0.lockDescriptor }
        if descriptor >= 0 { closeDescriptor(descriptor) }
    }

    /// Releases the directory for another instance once the writes in progress are done; the
    /// outbox refuses new entries after. Entries stay on disk. Releasing the last reference closes
    /// it too.
    func close() {
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
    var depth: Int {
        state.withLock { $0.entries.count }
    }

    /// The bytes their files take.
    var byteCount: Int {
        state.withLock { $0.totalBytes }
    }

    /// When the oldest waiting entry was enqueued; nil when the outbox is empty.
    var oldestEntryDate: Date? {
        state.withLock { state in state.entries.values.min { $0.sequence < $1.sequence }?.entry.enqueuedAt }
    }

    /// The waiting entries, oldest first.
    var entries: [OutboxEntry] {
        state.withLock { state in state.entries.values.sorted { $0.sequence < $1.sequence }.map(\.entry) }
    }

    /// The files set aside as not whole records, since the outbox was opened.
    var skippedRecords: [Outbox.SkippedRecord] {
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
    func record(_ outcome: StoredOutcome, completion: @escaping @Sendable (Result<Bool, HTTPClientError>) -> Void) {
        let data: Data
        do {
            data = try OutboxRecord.outcome(outcome).encoded()
        } catch {
            return queue.async { completion(.failure(HTTPClientError(.fileSystem, message: "cannot record an outcome: \(error)"))) }
        }
        flush(writing: data, to: OutboxDirectory.outcomePath(directory.path, outcome.id)) { [self] failure in
            if let failure {
                return completion(.failure(HTTPClientError(.fileSystem, message: "cannot record an outcome: \(failure.what) failed (errno \(failure.errno))")))
            }
            // A later delivery in this process hands it over without sending the entry again.
            state.withLock { $0.entries[outcome.id]?.recordedOutcome = outcome }
            completion(.success(true))
        }
    }

    /// Removes entry `id` and its outcome: from the index at once (a delivery that starts now does
    /// not hand it over again), from the disk at the next flush.
    func remove(_ id: UUID) {
        schedule { state in
            if let removed = state.entries.removeValue(forKey: id) { state.totalBytes -= removed.bytes }
            state.removals.append(id)
        }
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
        for (write, failure) in zip(writes, failures) {
            write.done(failure)
        }
    }

    private func setAside(_ id: UUID, reason: String) {
        let name = OutboxDirectory.entryName(id)
        let moved = OutboxDirectory.setAside(directory.path, name)
        state.withLock { state in
            if let removed = state.entries.removeValue(forKey: id) { state.totalBytes -= removed.bytes }
            state.skipped.append(Outbox.SkippedRecord(fileName: moved ?? name, reason: reason))
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
