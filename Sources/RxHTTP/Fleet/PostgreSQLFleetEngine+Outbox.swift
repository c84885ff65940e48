// Built with the package trait `PostgreSQL` only: without it nothing here names PostgresNIO.
#if PostgreSQL
import Foundation
import PostgresNIO

/// A fleet's outbox in the database: one row per entry of `rxnetworkkit_outbox` (created on first
/// use), keyed by namespace, outbox name and entry id; the entry's record (the same checked format
/// as a directory's files), its origin, size and sequence; the outcome once recorded; and who holds
/// it until when (the claim).
extension PostgreSQLFleetEngine {
    /// A claimed row.
    struct OutboxRow: Sendable {
        var id: UUID
        var sequence: Int64
        var record: Data
        var outcome: Data?
    }

    /// What the table holds for one outbox (skipped rows aside).
    struct OutboxCounts: Sendable {
        var entries: Int
        var bytes: Int
        var oldest: Double?
    }

    static let outboxSchema = [
        """
        CREATE TABLE IF NOT EXISTS rxnetworkkit_outbox (
            namespace text NOT NULL, outbox text NOT NULL, id uuid NOT NULL,
            sequence bigint GENERATED ALWAYS AS IDENTITY, origin text NOT NULL, record bytea NOT NULL, bytes integer NOT NULL,
            enqueued_at float8 NOT NULL, outcome bytea, claimed_by text, lease_until timestamptz, skipped text,
            PRIMARY KEY (namespace, outbox, id))
        """,
        """
        CREATE INDEX IF NOT EXISTS rxnetworkkit_outbox_order ON rxnetworkkit_outbox (namespace, outbox, sequence)
        """,
    ]

    /// Creates the table once per process (idempotent; under a transaction-level advisory lock).
    func ensureOutboxSchema() async throws {
        try await transaction("creating the outbox table") { _, run in
            try await run("SELECT pg_advisory_xact_lock(hashtextextended('rxnetworkkit_outbox_schema', 0))")
            for statement in Self.outboxSchema {
                try await run(PostgresQuery(unsafeSQL: statement))
            }
        }
    }

    /// Takes outbox `outbox`'s transaction-level advisory lock: its inserts and claims, one at a time.
    private static func lockOutbox(_ outbox: String, namespace: String, _ run: Run) async throws {
        try await run("SELECT pg_advisory_xact_lock(hashtextextended(\(namespace) || '/outbox/' || \(outbox), 0))")
    }

    /// Inserts an entry unless the outbox would pass its bounds (then false); inserts of one outbox
    /// take its transaction-level advisory lock, so that the bounds hold across replicas.
    func outboxInsert(
        _ outbox: String, id: UUID, origin: String, record: Data, enqueuedAt: Double, maxEntries: Int, maxBytes: Int
    ) async throws -> Bool {
        let namespace = self.namespace
        let logger = self.logger
        let bytes = record.count
        return try await transaction("storing an outbox entry") { connection, run in
            try await Self.lockOutbox(outbox, namespace: namespace, run)
            let rows = try await connection.query(
                """
                SELECT count(*)::int8, coalesce(sum(bytes), 0)::int8 FROM rxnetworkkit_outbox
                WHERE namespace = \(namespace) AND outbox = \(outbox) AND skipped IS NULL
                """,
                logger: logger
            )
            var count = 0, total = 0
            for try await (entries, sum) in rows.decode((Int, Int).self) { (count, total) = (entries, sum) }
            guard count < maxEntries, total + bytes <= maxBytes else { return false }
            try await run(
                """
                INSERT INTO rxnetworkkit_outbox (namespace, outbox, id, origin, record, bytes, enqueued_at)
                VALUES (\(namespace), \(outbox), \(id), \(origin), \(record), \(bytes), \(enqueuedAt))
                """
            )
            return true
        }
    }

    /// Claims up to `limit` entries for `member` until `lease` seconds from now — the oldest first,
    /// free or whose holder's lease ran out, skipping an origin whose older entry a live sibling
    /// holds (so that an origin's entries go in order across the fleet) — and returns them with
    /// the outbox's counts. Claims of one outbox take its advisory lock, one claimer at a time.
    func outboxClaim(_ outbox: String, member: String, lease: TimeInterval, limit: Int) async throws -> ([OutboxRow], OutboxCounts) {
        let namespace = self.namespace
        let logger = self.logger
        return try await transaction("claiming outbox entries") { connection, run in
            try await Self.lockOutbox(outbox, namespace: namespace, run)
            var claimed: [OutboxRow] = []
            if limit > 0 {
                let rows = try await connection.query(
                    """
                    WITH candidates AS (
                        SELECT o.id FROM rxnetworkkit_outbox o
                        WHERE o.namespace = \(namespace) AND o.outbox = \(outbox) AND o.skipped IS NULL
                          AND (o.claimed_by IS NULL OR o.lease_until < clock_timestamp())
                          AND NOT EXISTS (
                              SELECT 1 FROM rxnetworkkit_outbox p
                              WHERE p.namespace = o.namespace AND p.outbox = o.outbox AND p.origin = o.origin
                                AND p.sequence < o.sequence AND p.skipped IS NULL AND p.claimed_by IS NOT NULL
                                AND p.claimed_by <> \(member) AND p.lease_until >= clock_timestamp())
                        ORDER BY o.sequence LIMIT \(limit) FOR UPDATE SKIP LOCKED)
                    UPDATE rxnetworkkit_outbox o
                    SET claimed_by = \(member), lease_until = clock_timestamp() + make_interval(secs => \(lease))
                    FROM candidates c WHERE o.namespace = \(namespace) AND o.outbox = \(outbox) AND o.id = c.id
                    RETURNING o.id, o.sequence, o.record, o.outcome
                    """,
                    logger: logger
                )
                for try await (id, sequence, record, outcome) in rows.decode((UUID, Int64, Data, Data?).self) {
                    claimed.append(OutboxRow(id: id, sequence: sequence, record: record, outcome: outcome))
                }
            }
            let counts = try await connection.query(
                """
                SELECT count(*)::int8, coalesce(sum(bytes), 0)::int8, min(enqueued_at) FROM rxnetworkkit_outbox
                WHERE namespace = \(namespace) AND outbox = \(outbox) AND skipped IS NULL
                """,
                logger: logger
            )
            var result = OutboxCounts(entries: 0, bytes: 0, oldest: nil)
            for try await (entries, bytes, oldest) in counts.decode((Int, Int, Double?).self) {
                result = OutboxCounts(entries: entries, bytes: bytes, oldest: oldest)
            }
            return (claimed.sorted { $0.sequence < $1.sequence }, result)
        }
    }

    /// Extends `member`'s claims on `ids` by `lease` seconds from now.
    func outboxRenew(_ outbox: String, member: String, ids: [UUID], lease: TimeInterval) async throws {
        guard !ids.isEmpty else { return }
        let namespace = self.namespace
        try await transaction("renewing outbox claims") { _, run in
            try await run(
                """
                UPDATE rxnetworkkit_outbox SET lease_until = clock_timestamp() + make_interval(secs => \(lease))
                WHERE namespace = \(namespace) AND outbox = \(outbox) AND claimed_by = \(member) AND id = ANY(\(ids))
                """
            )
        }
    }

    /// Records an outcome on an entry `member` still holds; false when it holds it no longer.
    func outboxRecord(_ outbox: String, member: String, id: UUID, outcome: Data) async throws -> Bool {
        let namespace = self.namespace
        let logger = self.logger
        return try await transaction("recording an outbox outcome") { connection, _ in
            let rows = try await connection.query(
                """
                UPDATE rxnetworkkit_outbox SET outcome = \(outcome)
                WHERE namespace = \(namespace) AND outbox = \(outbox) AND id = \(id) AND claimed_by = \(member)
                RETURNING id
                """,
                logger: logger
            )
            var updated = false
            for try await _ in rows.decode(UUID.self) { updated = true }
            return updated
        }
    }

    /// Deletes an entry whose outcome was handed over.
    func outboxDelete(_ outbox: String, id: UUID) async throws {
        let namespace = self.namespace
        try await transaction("removing an outbox entry") { _, run in
            try await run("DELETE FROM rxnetworkkit_outbox WHERE namespace = \(namespace) AND outbox = \(outbox) AND id = \(id)")
        }
    }

    /// Gives `member`'s claims on `ids` back to the fleet.
    func outboxRelease(_ outbox: String, member: String, ids: [UUID]) async throws {
        guard !ids.isEmpty else { return }
        let namespace = self.namespace
        try await transaction("releasing outbox claims") { _, run in
            try await run(
                """
                UPDATE rxnetworkkit_outbox SET claimed_by = NULL, lease_until = NULL
                WHERE namespace = \(namespace) AND outbox = \(outbox) AND claimed_by = \(member) AND id = ANY(\(ids))
                """
            )
        }
    }

    /// Marks a row that is not a whole record: never claimed again, kept for a person to look at.
    func outboxSkip(_ outbox: String, id: UUID, reason: String) async throws {
        let namespace = self.namespace
        try await transaction("setting an outbox entry aside") { _, run in
            try await run(
                "UPDATE rxnetworkkit_outbox SET skipped = \(reason), claimed_by = NULL WHERE namespace = \(namespace) AND outbox = \(outbox) AND id = \(id)"
            )
        }
    }
}
#endif
