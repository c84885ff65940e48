// Built with the package trait `PostgreSQL` only: without it nothing here names PostgresNIO.
#if PostgreSQL
import Foundation
import PostgresNIO

extension Fleet {
    /// A fleet of replicas anywhere, coordinated through a PostgreSQL database: fleet-wide locks
    /// are session-level advisory locks (a replica that dies loses its session and the lock with
    /// it), credentials, quota buckets, members and hosts' pauses are rows of five small tables
    /// created on first use (`rxnetworkkit_fleet_…`, every row keyed by `namespace`), quota
    /// arithmetic runs in one transaction on the database's clock, and the siblings' signals arrive
    /// by `LISTEN`/`NOTIFY` (a replica that starts during a sibling's pause reads it).
    ///
    /// ```swift
    /// let postgres = PostgresClient(configuration: .init(host: "db", username: "app", password: secret, database: "app", tls: .disable))
    /// let running = Task { await postgres.run() }   // yours to run, for as long as the fleet
    /// let fleet = try Fleet.postgreSQL(postgres, namespace: "billing-daemon")
    /// ```
    ///
    /// - **The caller owns the client**: it creates the `PostgresClient`, runs its `run()` in a task
    ///   of its own for as long as the fleet is used, and cancels it after `leave()`; the fleet
    ///   never runs, closes nor configures it. The fleet holds one of its connections for as long
    ///   as it lives (listening for signals), one while a credential refresh holds the fleet-wide
    ///   lock, and one per operation in flight for a few milliseconds (the default pool of 20 is
    ///   plenty); it leaves every session setting as it found it (`SET LOCAL` only), and closes a
    ///   connection only when a statement on it overran or a lock's release is in doubt.
    /// - **Errors**: the database unreachable, a statement failing or an operation overrunning
    ///   `operationTimeout` (a connection from the pool included) makes the fleet fall back to each
    ///   replica's own protection until an operation succeeds again, as `engineAvailability` says;
    ///   a statement that overran has its connection closed. The signal listener listens again every
    ///   second until the database is back (signals published meanwhile are lost; cooldowns are
    ///   advice). Messages never carry a credential's bytes.
    ///
    /// The database role needs to read and write the fleet's tables, and to create them if they do
    /// not exist yet (a role without `CREATE` works once they do).
    ///
    /// - Parameters:
    ///   - client: A `PostgresClient` the caller runs.
    ///   - namespace: The fleet's name, the same for every replica: 1 to 63 characters, any of them
    ///     but NUL (it is bound as a parameter, never written into SQL; the `NOTIFY` channel is
    ///     derived from it by hashing). Fleets of other namespaces in the same database are apart.
    ///   - heartbeatInterval: Seconds between heartbeats, 0.05...600; default 1. A member silent
    ///     for three is gone, and its quota leases return.
    ///   - operationTimeout: Seconds an operation (a statement, a lease, a lock's release) may take,
    ///     0.05...600; default 2.
    ///   - log: Told, one line at a time, when the engine goes away or comes back and when members
    ///     join or leave (a `Logger`'s `info`, `print`); nil for silence. Called on the fleet's threads.
    /// - Throws: `FleetError.invalidArgument` when the namespace is empty, longer than 63
    ///   characters or holds a NUL. The database is not reached here: the first heartbeat (at once)
    ///   tells whether it answers.
    /// - Note: Thread-safe, like every `Fleet`. Requires the package trait `PostgreSQL`.
    public static func postgreSQL(
        _ client: PostgresClient, namespace: String, heartbeatInterval: TimeInterval = 1, operationTimeout: TimeInterval = 2,
        log: (@Sendable (String) -> Void)? = nil
    ) throws -> Fleet {
        guard !namespace.isEmpty, namespace.count <= 63, !namespace.unicodeScalars.contains("\0") else {
            throw FleetError(.invalidArgument, "a PostgreSQL fleet's namespace has 1 to 63 characters and no NUL (this one: \(namespace.count) characters)")
        }
        let engine = PostgreSQLFleetEngine(
            client: client, namespace: namespace, heartbeatInterval: heartbeatInterval, operationTimeout: operationTimeout
        )
        return Fleet(engine: engine, heartbeatInterval: heartbeatInterval, operationTimeout: operationTimeout, log: log)
    }
}
#endif
