import Foundation

extension Fleet {
    /// The fleet's outbox `name`: entries any replica enqueues, delivered by the replicas that
    /// deliver it — each entry by one replica at a time.
    ///
    /// On a PostgreSQL fleet (`Fleet.postgreSQL(_:namespace:)`, trait `PostgreSQL`) the entries are
    /// rows of one table (`rxnetworkkit_outbox`, created on first use): `enqueue` succeeds once the
    /// row is committed; each replica's `client.rx.deliver(_:)` claims entries under a lease
    /// (`FOR UPDATE SKIP LOCKED`, one claimer of an outbox at a time), renews the lease while it
    /// works, and gives its claims back when it stops. A replica that dies stops renewing: once
    /// `lease` has run out a sibling claims its entries and sends them again with their key — an
    /// outcome the dead replica recorded is handed over as recovered. An origin's entries go in
    /// order across the fleet: a replica does not claim one while a live sibling holds an older one.
    /// Replicas look at the table every `pollInterval` while they deliver (and at once after their
    /// own `enqueue`), so `depth`, `byteCount` and `oldestEntryDate` are the whole fleet's as of
    /// the last look — the first one made here, before this method returns — and `entries` lists
    /// what this replica holds.
    ///
    /// - Parameters:
    ///   - name: The outbox's name in the fleet, 1 to 63 characters without NUL.
    ///   - maxEntries: The most entries of the whole outbox (1 … `Outbox.entryLimit`); default 100,000.
    ///   - maxBytes: The most bytes of their records (`Outbox.byteLimits`); default 1 GiB.
    ///   - lease: Seconds a claim lasts without renewal, 1…3,600; default 30: how long a dead
    ///     replica's entries wait before a sibling takes them.
    ///   - pollInterval: Seconds between looks at the table, 0.05…60; default 0.5.
    /// - Note: Blocks the calling thread for the first look at the table (creating it if needed), at
    ///   most the fleet's `operationTimeout`: call it from a thread, not from an async task. A
    ///   database that does not answer leaves the counts at 0 until a delivery's look.
    /// - Throws: `HTTPClientError` `.invalidRequest` for a bound or name out of range;
    ///   `.unsupported` on a same-host fleet (each replica there keeps an `Outbox(directory:)` of
    ///   its own).
    public func outbox(
        named name: String, maxEntries: Int = 100_000, maxBytes: Int = 1 << 30, lease: TimeInterval = 30, pollInterval: TimeInterval = 0.5
    ) throws(HTTPClientError) -> Outbox {
        try Outbox.checkBounds(maxEntries: maxEntries, maxBytes: maxBytes)
        guard !name.isEmpty, name.count <= 63, !name.unicodeScalars.contains("\0") else {
            throw HTTPClientError(.invalidRequest, message: "an outbox's name has 1 to 63 characters and no NUL", phase: .notSent)
        }
        guard (1...3_600).contains(lease), (0.05...60).contains(pollInterval) else {
            throw HTTPClientError(.invalidRequest, message: "lease must be in 1...3600 s and pollInterval in 0.05...60 s", phase: .notSent)
        }
        #if PostgreSQL
        if let engine = engine as? PostgreSQLFleetEngine {
            let store = PostgreSQLOutboxStore(
                engine: engine, name: name, member: member.id, maxEntries: maxEntries, maxBytes: maxBytes, lease: lease, pollInterval: pollInterval
            )
            store.lookOnce(waiting: engine.operationTimeout)
            return Outbox(store: store, directory: nil, maxEntries: maxEntries, maxBytes: maxBytes)
        }
        #endif
        throw HTTPClientError(
            .unsupported, message: "\(engine.description) keeps no outbox: give each replica an Outbox(directory:) of its own", phase: .notSent
        )
    }
}
