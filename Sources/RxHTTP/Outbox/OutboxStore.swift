import Foundation

/// Where an `Outbox` keeps its entries: a directory of this host (`DirectoryOutboxStore`) or a
/// fleet's database (`PostgreSQLOutboxStore`, trait `PostgreSQL`). Every member may be called from
/// any thread; completions arrive on the store's own threads.
protocol OutboxStore: AnyObject, Sendable {
    var depth: Int { get }
    var byteCount: Int { get }
    var oldestEntryDate: Date? { get }
    var entries: [OutboxEntry] { get }
    var skippedRecords: [Outbox.SkippedRecord] { get }

    /// Stores `entry` (its sequence is the store's to assign) and calls `completion` once it is
    /// durable (or committed), or with why not: `.rejected` when full, `.fileSystem`.
    func append(_ entry: StoredEntry, completion: @escaping @Sendable (Result<OutboxEntry, HTTPClientError>) -> Void)

    /// Makes `onStored` the one delivery of this store in this process and returns the entries it
    /// may deliver now, oldest first; entries that become available later (stored here, or on a
    /// fleet released by a sibling) go to `onStored`. Nil when another delivery is attached.
    func attach(_ onStored: @escaping @Sendable (Outbox.Indexed) -> Void) -> (id: UInt64, entries: [Outbox.Indexed])?

    /// Ends delivery `id`: what it holds and has not removed becomes available again.
    func detach(_ id: UInt64)

    /// The stored request of entry `id`, checked; nil when it is gone or no longer whole (then set
    /// aside and reported).
    func storedEntry(_ id: UUID) -> StoredEntry?

    /// Records `outcome` durably; `true` once recorded, `false` when the entry is no longer this
    /// process's to hand over (a fleet's lease lost to a sibling), or the failure.
    func record(_ outcome: StoredOutcome, completion: @escaping @Sendable (Result<Bool, HTTPClientError>) -> Void)

    /// Removes entry `id` and its outcome, durably.
    func remove(_ id: UUID)

    /// Releases what the store holds (a directory's lock, a fleet's claims); it refuses new entries
    /// after.
    func close()
}
