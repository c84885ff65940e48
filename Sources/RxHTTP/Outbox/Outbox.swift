import Foundation

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
/// In a directory (`init(directory:maxEntries:maxBytes:)`): a directory (mode 0700) with one file per entry (`<id>.entry`) and per recorded outcome
/// (`<id>.outcome`), each written whole or not at all and checked when read (`OutboxRecord`: magic,
/// version, length, checksum); `.lock` holds the outbox for one instance at a time (an advisory
/// lock the system releases when the process dies). A file that is not a whole record — a stranger's,
/// a flipped bit — is moved to `skipped/`, listed in `skippedRecords`, and never sent.
///
/// The stored request is the one the client built before its interceptors: the client's default
/// headers and the request's own are in it (the file is readable by its owner only), credentials
/// an authenticator or access-token plugin adds are not: they are added when it is sent.
///
/// On a fleet (`Fleet.outbox(named:maxEntries:maxBytes:lease:)`, trait `PostgreSQL`): rows of one
/// table that every replica's `deliver` claims under a lease; see that method.
///
/// Threading: every member may be called from any thread; files are written on the outbox's own
/// serial queue.
public final class Outbox: Sendable {
    /// A record that is not whole — a file of the directory, a row of a fleet's table — set aside
    /// (a file in `skipped/`, a row marked skipped) and never sent.
    public struct SkippedRecord: Sendable, Hashable, CustomStringConvertible {
        /// The file's name, as it now is in the `skipped` folder (a fleet's: the entry's id).
        public let fileName: String
        /// What is wrong with it.
        public let reason: String

        public var description: String { "\(fileName): \(reason)" }
    }

    /// The largest `maxEntries`.
    public static let entryLimit = 10_000_000
    /// The smallest and largest `maxBytes`.
    public static let byteLimits = 4_096...(1 << 40)

    /// The outbox's directory; nil for a fleet's outbox.
    public let directory: URL?
    /// The most entries it holds; `enqueue` fails past it.
    public let maxEntries: Int
    /// The most bytes its entries take (their records as stored); `enqueue` fails past it.
    public let maxBytes: Int

    /// An entry as a delivery sees it.
    struct Indexed: Sendable {
        var entry: OutboxEntry
        var sequence: UInt64
        var bytes: Int
        /// `scheme://host:port`: entries of one origin are delivered in order.
        var origin: String
        /// The outcome recorded for it and not yet handed over (or not known to be).
        var recordedOutcome: StoredOutcome?
        /// Whether that outcome was recorded by an earlier process (or a sibling replica), which may
        /// have handed it over before it died.
        var recordedBeforeStart = false
    }

    let store: any OutboxStore

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
    public convenience init(directory: URL, maxEntries: Int = 100_000, maxBytes: Int = 1 << 30) throws(HTTPClientError) {
        try Self.checkBounds(maxEntries: maxEntries, maxBytes: maxBytes)
        let store = try DirectoryOutboxStore(directory: directory.standardizedFileURL, maxEntries: maxEntries, maxBytes: maxBytes)
        self.init(store: store, directory: store.directory, maxEntries: maxEntries, maxBytes: maxBytes)
    }

    init(store: any OutboxStore, directory: URL?, maxEntries: Int, maxBytes: Int) {
        self.store = store
        self.directory = directory
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
    }

    static func checkBounds(maxEntries: Int, maxBytes: Int) throws(HTTPClientError) {
        guard (1...entryLimit).contains(maxEntries) else {
            throw HTTPClientError(.invalidRequest, message: "maxEntries must be in 1...\(entryLimit)", phase: .notSent)
        }
        guard byteLimits.contains(maxBytes) else {
            throw HTTPClientError(.invalidRequest, message: "maxBytes must be in \(byteLimits)", phase: .notSent)
        }
    }

    /// Releases the outbox for another instance once the writes in progress are done (a fleet's:
    /// returns the entries this replica holds to its siblings); it refuses new entries after.
    /// Entries stay. Releasing the last reference closes it too.
    public func close() {
        store.close()
    }

    /// How many entries wait for their outcome (or for it to be handed over). A fleet's counts every
    /// replica's, as of this replica's last look at the table (at most a poll interval ago).
    public var depth: Int { store.depth }

    /// The bytes their records take (as of the last look, on a fleet).
    public var byteCount: Int { store.byteCount }

    /// When the oldest waiting entry was enqueued; nil when the outbox is empty.
    public var oldestEntryDate: Date? { store.oldestEntryDate }

    /// How long the oldest waiting entry has waited, in seconds at `now`; nil when the outbox is
    /// empty.
    public func oldestEntryAge(now: Date = Date()) -> TimeInterval? {
        oldestEntryDate.map { max(0, now.timeIntervalSince($0)) }
    }

    /// The waiting entries, oldest first (a fleet's: those this replica holds now).
    public var entries: [OutboxEntry] { store.entries }

    /// The records set aside as not whole, since the outbox was opened.
    public var skippedRecords: [SkippedRecord] { store.skippedRecords }
}
