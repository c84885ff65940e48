// Built with the package trait `PostgreSQL` only: without it nothing here names PostgresNIO.
#if PostgreSQL
import Foundation
import Logging
import PostgresNIO
@_spi(RxNetworkKitInternals) import RxCore

/// A fleet of replicas anywhere, coordinated through one PostgreSQL database that the caller's
/// `PostgresClient` reaches (the caller runs the client; the engine never calls its `run()`):
///
/// - **Locks**: session-level advisory locks, `pg_try_advisory_lock(hashtextextended(namespace ||
///   ':' || name, 0))`, polled every 20 ms and held on one connection for the whole body, then
///   unlocked on that connection. A replica that dies loses its session, and the lock with it; a
///   connection whose unlock is in doubt is closed, which ends its session.
/// - **Tables** (created on first use, under a transaction-level advisory lock so that replicas
///   starting together do not race): `rxnetworkkit_fleet_credentials`, `…_buckets`,
///   `…_bucket_accounts`, `…_members` and `…_pauses`, each with `namespace` in its primary key.
/// - **Quota**: one transaction per lease locks the bucket's row, drops the accounts of members
///   whose heartbeat is older than the member time-out, and settles with `QuotaArithmetic.settle`
///   on the database's clock (`clock_timestamp()`), never the replicas'.
/// - **Signals**: `pg_notify` on a channel derived from the namespace by hashing (`rxnk_` and 16 hex
///   digits), listened to on one connection held for the purpose; a failed listen (the database
///   restarted, the connection went silent) listens again after a second until `close()`. The
///   latest cooldown or open circuit of each host is kept in a row too, read each time the
///   listener starts listening: a replica that starts (or listens again) while a sibling's pause
///   lasts honours it, as on one host.
///
/// Every operation is bounded: a connection must come from the pool within the operation time-out;
/// transactions run with `SET LOCAL statement_timeout`, and everything runs under a client-side
/// time limit too, past which the connection is closed (a hung statement never goes back to the
/// caller's pool). Connections: one for the listener for as long as the fleet, one per lock held
/// (for the lock's body) and one per operation in flight, each for a few milliseconds.
///
/// Values (the namespace, names, credential bytes) are always bound as parameters, never written
/// into SQL text. Error messages name the operation and the server's SQLSTATE and message, never a
/// query's parameters, so never a credential's bytes.
final class PostgreSQLFleetEngine: FleetEngine {
    private struct State: Sendable {
        var schemaReady = false
        var listener: Task<Void, Never>?
        /// The member time-out last given to `heartbeat` (the lease drops accounts older than it).
        var memberTimeout: TimeInterval
    }

    /// The most a stored credential may weigh (the same-host engine's limit).
    static let credentialLimit = 1 << 20
    /// PostgreSQL refuses `NOTIFY` payloads of 8000 bytes or more.
    static let payloadLimit = 7_999
    /// How often a lock is tried while a sibling holds it.
    static let lockPoll: Duration = .milliseconds(20)
    /// How long the listener waits after a failed listen before it listens again.
    static let listenBackOff: Duration = .seconds(1)
    /// How often the listening connection is checked (a silent network never fails the stream).
    static let listenPing: Duration = .seconds(5)

    let client: PostgresClient
    let namespace: String
    /// The `LISTEN` channel: `rxnk_` and the namespace's 64-bit FNV-1a hash in hex.
    let channel: String
    /// The longest a statement, a connection lease or a lock's unlock may take.
    let operationTimeout: TimeInterval
    private let state: LockedState<State>
    /// Whether the listener is listening now (tests wait for it before they publish).
    private let listening = LockedState<Bool>.make(false)
    let logger = Logger(label: "RxHTTP.Fleet.PostgreSQL", factory: { _ in SwiftLogNoOpLogHandler() })

    var description: String {
        "PostgreSQL fleet in namespace \(namespace)"
    }

    /// - Parameters:
    ///   - client: The caller's client, which the caller runs (`run()`) for as long as the fleet.
    ///   - namespace: The fleet's name in the database (validated by `Fleet.postgreSQL`).
    ///   - heartbeatInterval: The fleet's heartbeat interval: members silent for three are dead
    ///     (until the first `heartbeat` says otherwise).
    ///   - operationTimeout: The fleet's operation time-out.
    init(client: PostgresClient, namespace: String, heartbeatInterval: TimeInterval, operationTimeout: TimeInterval) {
        self.client = client
        self.namespace = namespace
        let hash = String(FleetNames.hash(namespace), radix: 16)
        self.channel = "rxnk_" + String(repeating: "0", count: 16 - hash.count) + hash
        self.operationTimeout = min(max(0.05, operationTimeout.isNaN ? 2 : operationTimeout), 600)
        let interval = min(max(0.05, heartbeatInterval.isNaN ? 1 : heartbeatInterval), 600)
        self.state = LockedState.make(State(memberTimeout: interval * 3))
    }

    deinit {
        close()
    }

    /// Whether the signal listener is listening now.
    var isListening: Bool {
        listening.withLock { $0 }
    }

    // MARK: Locks

    func withLock<T: Sendable>(_ name: String, wait: TimeInterval, _ body: @Sendable () async throws -> T) async throws -> T {
        let wait = min(max(0, wait.isNaN ? 0 : wait), 3_600)
        let lease = try await leaseConnection(within: operationTimeout, "taking the lock \(name)")
        defer { lease.release() }
        let connection = lease.connection
        let deadline = ContinuousClock.now + .milliseconds(Int64(wait * 1_000))
        // Polled here, each try bounded on its own, so that the caller's cancellation stops the wait.
        while true {
            let taken: Bool
            do {
                taken = try await advisoryLock(on: connection, "pg_try_advisory_lock", name)
            } catch {
                // The lock may have been taken after all (a late answer): ending the session frees it.
                await Self.discard(connection)
                throw Self.failure("taking the lock \(name)", error)
            }
            if taken { break }
            try Task.checkCancellation()
            guard ContinuousClock.now < deadline else {
                throw FleetError(.busy, "the lock \(name) was not free within \(String(format: "%.3g", wait)) s")
            }
            try? await Task.sleep(for: Self.lockPoll)
        }
        let result: Result<T, Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        // A lock whose release is in doubt goes with its session.
        let released = (try? await advisoryLock(on: connection, "pg_advisory_unlock", name)) ?? false
        if !released { await Self.discard(connection) }
        return try result.get()
    }

    /// Runs `function` (`pg_try_advisory_lock` or `pg_advisory_unlock`) on the lock `name` of this
    /// namespace, within the operation time-out; returns what it answered.
    private func advisoryLock(on connection: PostgresConnection, _ function: String, _ name: String) async throws -> Bool {
        let key = namespace + ":" + name
        let logger = self.logger
        return try await withFleetTimeout(operationTimeout, "\(function) on the lock \(name)") {
            // `function` is one of two constants of this file, never a caller's text.
            let rows = try await connection.query("SELECT \(unescaped: function)(hashtextextended(\(key), 0))", logger: logger)
            var answer = false
            for try await value in rows.decode(Bool.self) { answer = value }
            return answer
        }
    }

    // MARK: Credentials

    func readCredential(named name: String) async throws -> Data? {
        try await ensureSchema()
        let namespace = self.namespace
        let limit = Self.credentialLimit
        let logger = self.logger
        let found = try await withConnection("reading the credential \(name)") { connection -> (Int, Data?)? in
            let rows = try await connection.query(
                """
                SELECT octet_length(body)::int8, CASE WHEN octet_length(body) <= \(limit) THEN body END
                FROM rxnetworkkit_fleet_credentials WHERE namespace = \(namespace) AND name = \(name)
                """,
                logger: logger
            )
            var found: (Int, Data?)?
            for try await (length, body) in rows.decode((Int, Data?).self) { found = (length, body) }
            return found
        }
        guard let (length, body) = found else { return nil }
        guard let body, length <= limit else {
            throw FleetError(.corrupt, "the credential \(name) in namespace \(namespace) is \(length) bytes, more than \(limit)")
        }
        return body
    }

    func writeCredential(named name: String, _ data: Data?) async throws {
        if let data, data.count > Self.credentialLimit {
            throw FleetError(.invalidArgument, "the credential \(name) is \(data.count) bytes, more than \(Self.credentialLimit)")
        }
        try await ensureSchema()
        let namespace = self.namespace
        try await transaction("writing the credential \(name)") { connection, run in
            if let data {
                try await run(
                    """
                    INSERT INTO rxnetworkkit_fleet_credentials (namespace, name, body, updated_at)
                    VALUES (\(namespace), \(name), \(data), clock_timestamp())
                    ON CONFLICT (namespace, name) DO UPDATE SET body = EXCLUDED.body, updated_at = EXCLUDED.updated_at
                    """
                )
            } else {
                try await run("DELETE FROM rxnetworkkit_fleet_credentials WHERE namespace = \(namespace) AND name = \(name)")
            }
        }
    }

    // MARK: Quota

    func lease(_ request: QuotaLeaseRequest) async throws -> QuotaGrant {
        try await ensureSchema()
        let namespace = self.namespace
        let timeout = state.withLock { $0.memberTimeout }
        let logger = self.logger
        return try await transaction("a quota lease") { connection, run in
            // Creates the bucket full, or locks the existing row (a no-op update takes the lock):
            // every lease of this bucket waits here for the one before to commit.
            let bucketRows = try await connection.query(
                """
                INSERT INTO rxnetworkkit_fleet_buckets (namespace, key, tokens, at)
                VALUES (\(namespace), \(request.bucket), \(request.capacity), clock_timestamp())
                ON CONFLICT (namespace, key) DO UPDATE SET tokens = rxnetworkkit_fleet_buckets.tokens
                RETURNING tokens, extract(epoch FROM at)::float8, extract(epoch FROM clock_timestamp())::float8
                """,
                logger: logger
            )
            var bucket: (tokens: Double, at: Double, now: Double)?
            for try await (tokens, at, now) in bucketRows.decode((Double, Double, Double).self) { bucket = (tokens, at, now) }
            guard let bucket else { throw FleetError(.corrupt, "the quota bucket \(request.bucket) returned no row") }
            // The accounts of members that stopped heartbeating go: their leases return.
            try await run(
                """
                DELETE FROM rxnetworkkit_fleet_bucket_accounts AS account
                WHERE account.namespace = \(namespace) AND account.key = \(request.bucket) AND account.member <> \(request.member)
                AND NOT EXISTS (
                    SELECT 1 FROM rxnetworkkit_fleet_members AS member
                    WHERE member.namespace = account.namespace AND member.id = account.member
                    AND member.heartbeat_at >= clock_timestamp() - make_interval(secs => \(timeout))
                )
                """
            )
            let accountRows = try await connection.query(
                """
                SELECT member, leased FROM rxnetworkkit_fleet_bucket_accounts
                WHERE namespace = \(namespace) AND key = \(request.bucket) FOR UPDATE
                """,
                logger: logger
            )
            var accounts: [String: Int] = [:]
            for try await (member, leased) in accountRows.decode((String, Int32).self) where leased > 0 {
                accounts[member] = Int(leased)
            }
            var tokens = bucket.tokens
            var at = bucket.at
            let now = bucket.now
            // A foreign value starts the bucket empty: fewer sends, never more.
            if !tokens.isFinite || !at.isFinite || !now.isFinite {
                tokens = 0
                at = now.isFinite ? now : 0
            }
            let grant = QuotaArithmetic.settle(tokens: &tokens, at: &at, accounts: &accounts, request: request, now: now)
            try await run(
                """
                UPDATE rxnetworkkit_fleet_buckets SET tokens = \(tokens), at = to_timestamp(\(at))
                WHERE namespace = \(namespace) AND key = \(request.bucket)
                """
            )
            if let leased = accounts[request.member] {
                try await run(
                    """
                    INSERT INTO rxnetworkkit_fleet_bucket_accounts (namespace, key, member, leased)
                    VALUES (\(namespace), \(request.bucket), \(request.member), \(Int32(clamping: leased)))
                    ON CONFLICT (namespace, key, member) DO UPDATE SET leased = EXCLUDED.leased
                    """
                )
            } else {
                try await run(
                    """
                    DELETE FROM rxnetworkkit_fleet_bucket_accounts
                    WHERE namespace = \(namespace) AND key = \(request.bucket) AND member = \(request.member)
                    """
                )
            }
            return grant
        }
    }

    // MARK: Signals

    func publish(_ signal: FleetSignal) async throws {
        let payload: String
        do {
            payload = String(decoding: try JSONEncoder().encode(signal), as: UTF8.self)
        } catch {
            throw FleetError(.invalidArgument, "the signal for \(signal.origin) cannot be encoded")
        }
        guard payload.utf8.count <= Self.payloadLimit else {
            throw FleetError(.invalidArgument, "the signal for \(signal.origin) is \(payload.utf8.count) bytes, more than \(Self.payloadLimit)")
        }
        try await ensureSchema()
        let channel = self.channel
        let namespace = self.namespace
        // Kept for a replica that starts listening later, and told to those listening now (at the
        // commit): a later pause replaces an earlier one; a recovery ends an open circuit.
        try await transaction("publishing a signal") { _, run in
            switch signal.kind {
            case .cooldown, .circuitOpen:
                try await run(
                    """
                    INSERT INTO rxnetworkkit_fleet_pauses (namespace, origin, kind, until, body)
                    VALUES (\(namespace), \(signal.origin), \(signal.kind.rawValue), to_timestamp(\(signal.until)), \(payload))
                    ON CONFLICT (namespace, origin) DO UPDATE
                    SET kind = EXCLUDED.kind, until = EXCLUDED.until, body = EXCLUDED.body
                    WHERE rxnetworkkit_fleet_pauses.until < EXCLUDED.until
                    """
                )
            case .recovered:
                try await run(
                    """
                    DELETE FROM rxnetworkkit_fleet_pauses
                    WHERE namespace = \(namespace) AND origin = \(signal.origin) AND kind = \(FleetSignal.Kind.circuitOpen.rawValue)
                    """
                )
            }
            try await run("SELECT pg_notify(\(channel), \(payload))")
        }
    }

    func watchSignals(as member: FleetMember, _ onSignal: @escaping @Sendable (FleetSignal) -> Void) {
        let client = self.client
        let channel = self.channel
        let namespace = self.namespace
        let listening = self.listening
        let logger = self.logger
        let pingTimeout = operationTimeout
        let task = Task(executorPreference: FleetExecutor.shared) {
            while !Task.isCancelled {
                do {
                    try await client.withConnection { connection in
                        try await Self.listen(
                            on: connection, channel: channel, namespace: namespace, member: member.id, pingTimeout: pingTimeout,
                            listening: listening, logger: logger, onSignal
                        )
                    }
                } catch {
                    // Listened again after the back-off (a restarted database, a dead connection).
                }
                listening.withLock { $0 = false }
                try? await Task.sleep(for: Self.listenBackOff)
            }
        }
        let previous = state.withLock { state -> Task<Void, Never>? in
            defer { state.listener = task }
            return state.listener
        }
        previous?.cancel()
    }

    /// Listens on `connection` until the stream ends or fails, or the ping finds the connection dead
    /// (which then closes it, so that it never goes back to the pool).
    private static func listen(
        on connection: PostgresConnection, channel: String, namespace: String, member: String, pingTimeout: TimeInterval,
        listening: LockedState<Bool>, logger: Logger, _ onSignal: @escaping @Sendable (FleetSignal) -> Void
    ) async throws {
        try await connection.listen(on: channel) { notifications in
            listening.withLock { $0 = true }
            // What was published before this listener listened (it started late, or the database
            // restarted): the pauses that still last. No table yet means none.
            if let bodies = try? await withFleetTimeout(pingTimeout, "reading the pauses", {
                // The comment names the listener in pg_stat_activity (the channel is hex of our own).
                let rows = try await connection.query(
                    """
                    /* listener on \(unescaped: channel) */ SELECT body FROM rxnetworkkit_fleet_pauses
                    WHERE namespace = \(namespace) AND until > clock_timestamp() AND octet_length(body) <= \(Self.payloadLimit)
                    """,
                    logger: logger
                )
                var bodies: [String] = []
                for try await body in rows.decode(String.self) { bodies.append(body) }
                return bodies
            }) {
                let decoder = JSONDecoder()
                for body in bodies {
                    guard let signal = try? decoder.decode(FleetSignal.self, from: Data(body.utf8)), signal.from != member else { continue }
                    onSignal(signal)
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    let decoder = JSONDecoder()
                    for try await notification in notifications {
                        guard notification.payload.utf8.count <= Self.payloadLimit,
                              let signal = try? decoder.decode(FleetSignal.self, from: Data(notification.payload.utf8)),
                              signal.from != member else { continue }
                        onSignal(signal)
                    }
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: Self.listenPing)
                        do {
                            _ = try await withFleetTimeout(pingTimeout, "checking the listening connection") {
                                for try await _ in try await connection.query("SELECT 1", logger: logger) {}
                            }
                        } catch {
                            await Self.discard(connection)
                            throw error
                        }
                    }
                }
                // Either child ending (the stream finished or failed, the ping failed) ends both.
                _ = try await group.next()
                group.cancelAll()
            }
        }
    }

    // MARK: Members

    func heartbeat(_ member: FleetMember, timeout: TimeInterval) async throws -> [FleetMember] {
        let timeout = min(max(0.05, timeout.isNaN ? 3 : timeout), 3_600)
        state.withLock { $0.memberTimeout = timeout }
        try await ensureSchema()
        let namespace = self.namespace
        let logger = self.logger
        let since = member.since.timeIntervalSince1970
        let members = try await transaction("a heartbeat") { connection, run -> [FleetMember] in
            try await run(
                """
                INSERT INTO rxnetworkkit_fleet_members (namespace, id, host_name, process_id, since, heartbeat_at)
                VALUES (\(namespace), \(member.id), \(member.hostName), \(member.processID), to_timestamp(\(since)), clock_timestamp())
                ON CONFLICT (namespace, id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at
                """
            )
            try await run(
                """
                WITH dead AS (
                    DELETE FROM rxnetworkkit_fleet_members
                    WHERE namespace = \(namespace) AND id <> \(member.id)
                    AND heartbeat_at < clock_timestamp() - make_interval(secs => \(timeout))
                    RETURNING id
                )
                DELETE FROM rxnetworkkit_fleet_bucket_accounts
                WHERE namespace = \(namespace) AND member IN (SELECT id FROM dead)
                """
            )
            let rows = try await connection.query(
                """
                SELECT id, host_name, process_id, extract(epoch FROM since)::float8 FROM rxnetworkkit_fleet_members
                WHERE namespace = \(namespace)
                """,
                logger: logger
            )
            var members: [FleetMember] = []
            for try await (id, hostName, processID, since) in rows.decode((String, String, Int32, Double).self) {
                // Our own row is ourselves exactly (the database keeps `since` to the microsecond).
                members.append(id == member.id ? member : FleetMember(
                    id: id, hostName: hostName, processID: processID, since: Date(timeIntervalSince1970: since.isFinite ? since : 0)
                ))
            }
            return members
        }
        return members.sorted { ($0.since, $0.id) < ($1.since, $1.id) }
    }

    func leave(_ member: FleetMember) async {
        let namespace = self.namespace
        try? await transaction("leaving the fleet") { _, run in
            try await run("DELETE FROM rxnetworkkit_fleet_bucket_accounts WHERE namespace = \(namespace) AND member = \(member.id)")
            try await run("DELETE FROM rxnetworkkit_fleet_members WHERE namespace = \(namespace) AND id = \(member.id)")
        }
    }

    func close() {
        let listener = state.withLock { state -> Task<Void, Never>? in
            defer { state.listener = nil }
            return state.listener
        }
        listener?.cancel()
    }

    // MARK: Schema

    /// Creates the tables once per engine (a no-op when they exist), under a transaction-level
    /// advisory lock so that replicas starting together do not race in `CREATE TABLE`.
    private func ensureSchema() async throws {
        guard !state.withLock({ $0.schemaReady }) else { return }
        let logger = self.logger
        try await transaction("creating the fleet's tables") { connection, run in
            let existing = try await connection.query(
                """
                SELECT to_regclass('rxnetworkkit_fleet_credentials') IS NOT NULL
                AND to_regclass('rxnetworkkit_fleet_buckets') IS NOT NULL
                AND to_regclass('rxnetworkkit_fleet_bucket_accounts') IS NOT NULL
                AND to_regclass('rxnetworkkit_fleet_members') IS NOT NULL
                AND to_regclass('rxnetworkkit_fleet_pauses') IS NOT NULL
                """,
                logger: logger
            )
            var exists = false
            for try await value in existing.decode(Bool.self) { exists = value }
            if exists { return }
            try await run("SELECT pg_advisory_xact_lock(hashtextextended('rxnetworkkit_fleet_schema', 0))")
            for statement in Self.schema {
                try await run(PostgresQuery(unsafeSQL: statement))
            }
        }
        state.withLock { $0.schemaReady = true }
    }

    /// The tables, in the order they are created (each statement idempotent).
    static let schema = [
        """
        CREATE TABLE IF NOT EXISTS rxnetworkkit_fleet_credentials (
            namespace text NOT NULL, name text NOT NULL, body bytea NOT NULL, updated_at timestamptz NOT NULL,
            PRIMARY KEY (namespace, name))
        """,
        """
        CREATE TABLE IF NOT EXISTS rxnetworkkit_fleet_buckets (
            namespace text NOT NULL, key text NOT NULL, tokens float8 NOT NULL, at timestamptz NOT NULL,
            PRIMARY KEY (namespace, key))
        """,
        """
        CREATE TABLE IF NOT EXISTS rxnetworkkit_fleet_bucket_accounts (
            namespace text NOT NULL, key text NOT NULL, member text NOT NULL, leased integer NOT NULL,
            PRIMARY KEY (namespace, key, member))
        """,
        """
        CREATE INDEX IF NOT EXISTS rxnetworkkit_fleet_bucket_accounts_member
            ON rxnetworkkit_fleet_bucket_accounts (namespace, member)
        """,
        """
        CREATE TABLE IF NOT EXISTS rxnetworkkit_fleet_members (
            namespace text NOT NULL, id text NOT NULL, host_name text NOT NULL, process_id integer NOT NULL,
            since timestamptz NOT NULL, heartbeat_at timestamptz NOT NULL,
            PRIMARY KEY (namespace, id))
        """,
        """
        CREATE TABLE IF NOT EXISTS rxnetworkkit_fleet_pauses (
            namespace text NOT NULL, origin text NOT NULL, kind text NOT NULL, until timestamptz NOT NULL, body text NOT NULL,
            PRIMARY KEY (namespace, origin))
        """,
    ]

    // MARK: Connections

    /// A connection borrowed from the caller's pool beyond one closure's body, so that waiting for it
    /// can be bounded: a task holds the pool's lease until `release()` (or the lease's end of life).
    private final class Lease: Sendable {
        let connection: PostgresConnection
        private let done: AsyncStream<Void>.Continuation

        init(connection: PostgresConnection, done: AsyncStream<Void>.Continuation) {
            self.connection = connection
            self.done = done
        }

        deinit {
            done.finish()
        }

        func release() {
            done.finish()
        }
    }

    /// A connection from the pool within `seconds` (the pool waits for ever when the caller's client
    /// is not running or all its connections are busy).
    private func leaseConnection(within seconds: TimeInterval, _ what: String) async throws -> Lease {
        let client = self.client
        let pending = LockedState<CheckedContinuation<Void, Error>?>.make(nil)
        let take: @Sendable () -> CheckedContinuation<Void, Error>? = {
            pending.withLock { stored in defer { stored = nil }; return stored }
        }
        // The lease crosses from the holder's task to the caller's through a lock, not the
        // continuation's payload: the hand-over is then visible to ThreadSanitizer too (it does not
        // see the one a continuation makes between the fleet's executor and another).
        let handedOver = LockedState<Lease?>.make(nil)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            pending.withLock { $0 = continuation }
            let holder = Task(executorPreference: FleetExecutor.shared) {
                do {
                    try await client.withConnection { connection in
                        let (released, done) = AsyncStream<Void>.makeStream()
                        // Too late (the wait timed out): the connection goes straight back.
                        guard let waiting = take() else { return }
                        handedOver.withLock { $0 = Lease(connection: connection, done: done) }
                        waiting.resume()
                        for await _ in released {}
                    }
                } catch {
                    take()?.resume(throwing: FleetError(
                        .unavailable, "\(what): no connection from the PostgreSQL client (\(Self.describe(error)))"
                    ))
                }
            }
            Task(executorPreference: FleetExecutor.shared) {
                try? await Task.sleep(for: .milliseconds(Int64(seconds * 1_000)))
                guard let waiting = take() else { return }
                holder.cancel()
                waiting.resume(throwing: FleetError(
                    .timedOut, "\(what): no connection from the PostgreSQL client within \(String(format: "%.3g", seconds)) s (is its run() running?)"
                ))
            }
        }
        guard let lease = handedOver.withLock({ lease in defer { lease = nil }; return lease }) else {
            throw FleetError(.unavailable, "\(what): the PostgreSQL client handed over no connection")
        }
        return lease
    }

    /// Runs `body` on a connection of the pool, within the operation time-out (the lease's wait
    /// included); a connection whose statement overran is closed.
    func withConnection<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let start = ContinuousClock.now
        let lease: Lease
        do {
            lease = try await leaseConnection(within: operationTimeout, what)
        } catch {
            throw Self.failure(what, error)
        }
        defer { lease.release() }
        let left = max(0.001, operationTimeout - Self.seconds(ContinuousClock.now - start))
        do {
            return try await withFleetTimeout(left, what) { try await body(lease.connection) }
        } catch {
            if let error = error as? FleetError, error.kind == .timedOut { await Self.discard(lease.connection) }
            throw Self.failure(what, error)
        }
    }

    /// Runs one statement that returns no rows (its rows, if any, are read and dropped).
    typealias Run = @Sendable (PostgresQuery) async throws -> Void

    /// Runs `body` in one transaction with `SET LOCAL statement_timeout`, committed when it returns
    /// and rolled back when it throws; a connection whose rollback fails is closed, so that a
    /// transaction never goes back to the caller's pool open.
    func transaction<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (PostgresConnection, Run) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        // Four fifths of the time-out: the server cancels an overrunning statement (and the
        // transaction rolls back) before the client-side limit closes the connection.
        let milliseconds = String(max(1, Int(operationTimeout * 800)))
        return try await withConnection(what) { connection in
            let run: Run = { query in
                for try await _ in try await connection.query(query, logger: logger) {}
            }
            try await run("BEGIN")
            do {
                try await run("SELECT set_config('statement_timeout', \(milliseconds), true)")
                let value = try await body(connection, run)
                try await run("COMMIT")
                return value
            } catch {
                do {
                    try await run("ROLLBACK")
                } catch {
                    await Self.discard(connection)
                }
                throw error
            }
        }
    }

    /// Closes `connection`: its session ends (with any lock or transaction it holds) and the pool
    /// drops it rather than lend it again. (A local close: it does not wait for the server.)
    private static func discard(_ connection: PostgresConnection) async {
        try? await connection.close()
    }

    /// The error to throw for `error` during `what`: a `FleetError` as it is, anything else
    /// `.unavailable` (or `.timedOut` for a statement time-out). The fleet names the engine.
    private static func failure(_ what: String, _ error: Error) -> FleetError {
        if let error = error as? FleetError { return error }
        let kind: FleetError.Kind
        switch (error as? PSQLError)?.serverInfo?[.sqlState] {
        // query_canceled (statement_timeout), lock_not_available (lock_timeout).
        case "57014", "55P03": kind = .timedOut
        default: kind = .unavailable
        }
        return FleetError(kind, "\(what) failed: \(Self.describe(error))")
    }

    /// What went wrong, without the query or its parameters: the client's error code, the server's
    /// SQLSTATE and message.
    static func describe(_ error: Error) -> String {
        if let error = error as? PSQLError {
            guard let server = error.serverInfo else { return "PostgreSQL client error \(error.code)" }
            return "PostgreSQL error \(server[.sqlState] ?? "?"): \(server[.message] ?? "no message")"
        }
        if let error = error as? PostgresTransactionError {
            return describe(error.closureError ?? error.commitError ?? error.beginError ?? error.rollbackError ?? CancellationError())
        }
        if let error = error as? PostgresDecodingError {
            return "a column \(error.columnName) of an unexpected type (\(error.postgresType))"
        }
        if error is CancellationError { return "cancelled" }
        return "\(type(of: error))"
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
#endif
