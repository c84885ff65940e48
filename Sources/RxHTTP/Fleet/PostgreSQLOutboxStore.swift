// Built with the package trait `PostgreSQL` only: without it nothing here names PostgresNIO.
#if PostgreSQL
import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// A fleet's outbox: entries are rows of the fleet's database, which every replica's delivery claims
/// under a lease.
///
/// While a delivery is attached, a poller claims entries every `pollInterval` (and at once after an
/// `enqueue` here): at most `claimLimit` held at a time, renewed every third of the lease. A
/// replica that dies stops renewing, and its entries are claimed by a sibling once the lease runs
/// out (a sibling sends them again with their key; an outcome the dead replica recorded is handed
/// over as recovered). Detaching or closing gives the claims back at once.
final class PostgreSQLOutboxStore: OutboxStore {
    /// The most entries one replica holds at once.
    static let claimLimit = 64

    private struct Claim: Sendable {
        var indexed: Outbox.Indexed
        var stored: StoredEntry
    }

    private struct State: Sendable {
        var closed = false
        var counts = PostgreSQLFleetEngine.OutboxCounts(entries: 0, bytes: 0, oldest: nil)
        var claims: [UUID: Claim] = [:]
        var listener: (id: UInt64, onStored: @Sendable (Outbox.Indexed) -> Void)?
        var nextListenerID: UInt64 = 0
        var poller: Task<Void, Never>?
        var poked = false
        var lastRenewal = Date.distantPast
        var skipped: [Outbox.SkippedRecord] = []
    }

    let engine: PostgreSQLFleetEngine
    let name: String
    let member: String
    let maxEntries: Int
    let maxBytes: Int
    let lease: TimeInterval
    let pollInterval: TimeInterval
    private let state = LockedState<State>.make(State())
    private let schema: Task<Void, Error>

    init(engine: PostgreSQLFleetEngine, name: String, member: String, maxEntries: Int, maxBytes: Int, lease: TimeInterval, pollInterval: TimeInterval) {
        self.engine = engine
        self.name = name
        self.member = member
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.lease = lease
        self.pollInterval = pollInterval
        self.schema = Task { try await engine.ensureOutboxSchema() }
    }

    /// The first look at the table (its counts), waited for on the calling thread for at most
    /// `timeout` seconds, so that `depth` says what is there from the start.
    func lookOnce(waiting timeout: TimeInterval) {
        let looked = DispatchSemaphore(value: 0)
        Task { [weak self] in
            await self?.poll(claiming: false)
            looked.signal()
        }
        _ = looked.wait(timeout: .now() + timeout)
    }


    deinit {
        close()
    }

    var depth: Int { state.withLock { $0.counts.entries } }
    var byteCount: Int { state.withLock { $0.counts.bytes } }
    var oldestEntryDate: Date? { state.withLock { $0.counts.oldest.map(Date.init(timeIntervalSince1970:)) } }
    var entries: [OutboxEntry] {
        state.withLock { state in state.claims.values.map(\.indexed).sorted { $0.sequence < $1.sequence }.map(\.entry) }
    }
    var skippedRecords: [Outbox.SkippedRecord] { state.withLock { $0.skipped } }

    // MARK: Storing

    func append(_ entry: StoredEntry, completion: @escaping @Sendable (Result<OutboxEntry, HTTPClientError>) -> Void) {
        guard !state.withLock({ $0.closed }) else {
            return completion(.failure(HTTPClientError(.fileSystem, message: "the outbox is closed", phase: .notSent)))
        }
        let record: Data
        do {
            record = try OutboxRecord.entry(entry).encoded()
        } catch {
            return completion(.failure(HTTPClientError(.invalidRequest, message: "the entry \(error)", phase: .notSent)))
        }
        Task { [self] in
            do {
                try await schema.value
                let stored = try await engine.outboxInsert(
                    name, id: entry.id, origin: OutboxDirectory.origin(of: entry.url), record: record, enqueuedAt: entry.enqueuedAt,
                    maxEntries: maxEntries, maxBytes: maxBytes
                )
                guard stored else {
                    return completion(.failure(HTTPClientError(
                        .rejected, message: "the outbox is full (\(maxEntries) entries, \(maxBytes) bytes)", phase: .notSent
                    )))
                }
                state.withLock { state in
                    state.counts.entries += 1
                    state.counts.bytes += record.count
                    state.poked = true
                }
                completion(.success(OutboxEntry(entry)))
            } catch {
                completion(.failure(HTTPClientError(
                    .fileSystem, message: "the fleet's outbox table cannot be written: \(PostgreSQLFleetEngine.describe(error))", phase: .notSent
                )))
            }
        }
    }

    // MARK: Delivering

    func attach(_ onStored: @escaping @Sendable (Outbox.Indexed) -> Void) -> (id: UInt64, entries: [Outbox.Indexed])? {
        let id = state.withLock { state -> UInt64? in
            guard state.listener == nil, !state.closed else { return nil }
            state.nextListenerID += 1
            state.listener = (state.nextListenerID, onStored)
            state.poked = true
            return state.nextListenerID
        }
        guard let id else { return nil }
        let poller = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                await self.poll()
                await self.pause()
            }
        }
        state.withLock { $0.poller = poller }
        return (id, [])
    }

    func detach(_ id: UInt64) {
        let released = state.withLock { state -> (Task<Void, Never>?, [UUID])? in
            guard state.listener?.id == id else { return nil }
            state.listener = nil
            defer {
                state.poller = nil
                state.claims = [:]
            }
            return (state.poller, Array(state.claims.keys))
        }
        guard let (poller, ids) = released else { return }
        poller?.cancel()
        let (engine, name, member) = (self.engine, self.name, self.member)
        // Given back at once, so that a sibling need not wait for the lease to run out.
        Task { try? await engine.outboxRelease(name, member: member, ids: ids) }
    }

    func storedEntry(_ id: UUID) -> StoredEntry? {
        state.withLock { $0.claims[id]?.stored }
    }

    func record(_ outcome: StoredOutcome, completion: @escaping @Sendable (Result<Bool, HTTPClientError>) -> Void) {
        let data: Data
        do {
            data = try OutboxRecord.outcome(outcome).encoded()
        } catch {
            return completion(.failure(HTTPClientError(.fileSystem, message: "cannot record an outcome: \(error)")))
        }
        Task { [self] in
            var lastError: Error?
            // A database that blinks does not end the delivery: three tries, a tenth of a second apart.
            for attempt in 0..<3 {
                if attempt > 0 { try? await Task.sleep(nanoseconds: 100_000_000) }
                do {
                    let recorded = try await engine.outboxRecord(name, member: member, id: outcome.id, outcome: data)
                    if !recorded { state.withLock { _ = $0.claims.removeValue(forKey: outcome.id) } }
                    return completion(.success(recorded))
                } catch {
                    lastError = error
                }
            }
            completion(.failure(HTTPClientError(
                .fileSystem, message: "the fleet's outbox table cannot record an outcome: \(PostgreSQLFleetEngine.describe(lastError ?? CancellationError()))"
            )))
        }
    }

    func remove(_ id: UUID) {
        // The counts follow at the next look at the table, once the row is gone.
        state.withLock { _ = $0.claims.removeValue(forKey: id) }
        let (engine, name) = (self.engine, self.name)
        Task {
            // If this fails the entry keeps its claim and outcome: a sibling (or this replica) hands
            // the outcome over again, as recovered, once the lease runs out.
            for attempt in 0..<3 {
                if attempt > 0 { try? await Task.sleep(nanoseconds: 100_000_000) }
                if (try? await engine.outboxDelete(name, id: id)) != nil { return }
            }
        }
    }

    func close() {
        let listener = state.withLock { state -> UInt64? in
            state.closed = true
            return state.listener?.id
        }
        if let listener { detach(listener) }
    }

    // MARK: Polling

    /// One look at the table: renews the claims when a third of the lease has passed, claims what
    /// this replica may hold more of, and hands each new claim to the delivery.
    private func poll(claiming: Bool = true) async {
        let (held, renew) = state.withLock { state -> ([UUID], Bool) in
            state.poked = false
            let renew = Date().timeIntervalSince(state.lastRenewal) >= lease / 3
            if renew { state.lastRenewal = Date() }
            return (Array(state.claims.keys), renew)
        }
        do {
            try await schema.value
            if renew { try await engine.outboxRenew(name, member: member, ids: held, lease: lease) }
            let limit = claiming ? Self.claimLimit - held.count : 0
            let (rows, counts) = try await engine.outboxClaim(name, member: member, lease: lease, limit: limit)
            state.withLock { $0.counts = counts }
            for row in rows { await take(row) }
        } catch {
            // The database is away: the next poll tries again; claims not renewed go to siblings.
        }
    }

    private func take(_ row: PostgreSQLFleetEngine.OutboxRow) async {
        let stored: StoredEntry
        do {
            guard case .entry(let entry) = try OutboxRecord.decode(row.record), entry.id == row.id else {
                throw OutboxRecord.Defect.malformed("its id does not match its row")
            }
            stored = entry
        } catch {
            let reason = (error as? OutboxRecord.Defect)?.description ?? "\(error)"
            state.withLock { $0.skipped.append(Outbox.SkippedRecord(fileName: row.id.uuidString, reason: reason)) }
            try? await engine.outboxSkip(name, id: row.id, reason: reason)
            return
        }
        var outcome: StoredOutcome?
        if let data = row.outcome, case .outcome(let recorded)? = try? OutboxRecord.decode(data), recorded.id == row.id {
            outcome = recorded
        }
        let indexed = Outbox.Indexed(
            entry: OutboxEntry(stored), sequence: UInt64(max(0, row.sequence)), bytes: row.record.count,
            origin: OutboxDirectory.origin(of: stored.url), recordedOutcome: outcome, recordedBeforeStart: outcome != nil
        )
        let listener = state.withLock { state -> (@Sendable (Outbox.Indexed) -> Void)? in
            guard state.claims[row.id] == nil, let listener = state.listener else { return nil }
            state.claims[row.id] = Claim(indexed: indexed, stored: stored)
            return listener.onStored
        }
        listener?(indexed)
    }

    /// Waits for the next poll: `pollInterval`, or less once an entry was stored here.
    private func pause() async {
        let slices = max(1, Int((pollInterval / 0.01).rounded()))
        for _ in 0..<slices {
            if Task.isCancelled || state.withLock({ $0.poked }) { return }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
    }
}
#endif
