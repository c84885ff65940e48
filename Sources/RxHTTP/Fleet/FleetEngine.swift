import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// The shared store a `Fleet` coordinates through: a directory on one host (`SameHostFleetEngine`)
/// or a PostgreSQL database (`PostgreSQLFleetEngine`, trait `PostgreSQL`). One internal protocol,
/// so that the credential store, the quota and the host signals are written once.
///
/// Every operation is short and bounded in time (an engine that hangs is an engine that failed);
/// a thrown error makes the fleet fall back to each replica's own protection until an operation
/// succeeds again.
protocol FleetEngine: Sendable {
    /// What it is, for messages: `same-host fleet at /var/lib/app/fleet`.
    var description: String { get }

    /// Runs `body` holding the fleet-wide lock `name`: at most one holder in the whole fleet at a
    /// time; a holder that dies (process killed, database session lost) releases it.
    ///
    /// - Throws: `FleetError` when the lock cannot be had within `wait` seconds or the engine fails;
    ///   whatever `body` throws.
    func withLock<T: Sendable>(_ name: String, wait: TimeInterval, _ body: @Sendable () async throws -> T) async throws -> T

    /// The stored credential bytes under `name`; nil when there are none.
    func readCredential(named name: String) async throws -> Data?

    /// Replaces (or, with nil, removes) the credential bytes under `name`, durably.
    func writeCredential(named name: String, _ data: Data?) async throws

    /// Settles one replica's account with a shared token bucket and leases it up to
    /// `request.want` tokens.
    func lease(_ request: QuotaLeaseRequest) async throws -> QuotaGrant

    /// Tells every other replica about a host (a cooldown, an open circuit, a recovery).
    func publish(_ signal: FleetSignal) async throws

    /// Starts delivering the siblings' signals to `onSignal` (soon after they are published: the
    /// fleet's promise is 100 ms); `member` is this replica, whose own signals are not delivered.
    func watchSignals(as member: FleetMember, _ onSignal: @escaping @Sendable (FleetSignal) -> Void)

    /// Records that `member` is alive now and returns every member alive (heartbeat within
    /// `timeout` seconds), itself included; forgets the dead ones and their quota leases.
    func heartbeat(_ member: FleetMember, timeout: TimeInterval) async throws -> [FleetMember]

    /// Removes `member` at once (a clean stop), its leases given back by the caller before.
    func leave(_ member: FleetMember) async

    /// Stops watching and releases what the engine holds of its own (not the caller's database
    /// client).
    func close()
}

/// A replica's turn at a shared token bucket: what it spent and gives back since its last turn,
/// and how many tokens it wants now.
struct QuotaLeaseRequest: Sendable {
    /// The bucket: the host's origin and the limit (a changed limit is a new bucket).
    let bucket: String
    /// Tokens per second.
    let rate: Double
    /// The bucket's capacity (the limit's burst): tokens in it plus every replica's unreported
    /// lease never exceed it, so that the fleet's sends stay within the limit plus its burst.
    let capacity: Double
    /// Who asks.
    let member: String
    /// Tokens leased before that this replica still holds unspent (after giving back `returned`):
    /// its account is set to this, not moved by it, so that a grant whose answer was lost (a
    /// time-out, a connection dropped after the commit) is struck off by the next lease instead
    /// of holding a part of the capacity for as long as the replica lives.
    let holding: Int
    /// Tokens given back unspent: they go back into the bucket.
    let returned: Int
    /// Tokens wanted now (0: only settling).
    let want: Int
}

/// What a lease gave.
struct QuotaGrant: Sendable, Equatable {
    /// Tokens granted, 0...want.
    let granted: Int
    /// When fewer than wanted were granted: seconds until the next token.
    let nextTokenIn: TimeInterval?
}

/// A message from one replica to its siblings about a host.
struct FleetSignal: Sendable, Codable, Equatable {
    enum Kind: String, Sendable, Codable {
        /// The host asked for a pause (`Retry-After`, a spent rate limit) until `until`.
        case cooldown
        /// The host's circuit opened until `until`.
        case circuitOpen
        /// The host came back (reachable again, or a trial succeeded): open circuits go half-open.
        case recovered
    }

    /// The host's origin (`https://api.example.com:443`).
    let origin: String
    let kind: Kind
    /// The end of a cooldown or open circuit on the wall clock (seconds since 1970); 0 for
    /// `.recovered`.
    let until: TimeInterval
    /// The HTTP status that caused a cooldown, for the siblings' errors.
    let statusCode: Int?
    /// The member that saw it.
    let from: String
}

/// Why a fleet's engine failed an operation.
///
/// - Note: A value type; `Sendable`. Its description names the engine and the operation, never a
///   credential.
public struct FleetError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public enum Kind: String, Sendable, Hashable {
        /// The engine could not be reached or answered with an error.
        case unavailable
        /// An operation did not finish within its time.
        case timedOut
        /// A fleet-wide lock stayed with a sibling for the whole wait (the fleet working, not failing).
        case busy
        /// What the engine holds could not be read (torn, foreign or too large).
        case corrupt
        /// A name or setting given to the fleet is not usable.
        case invalidArgument
    }

    /// What failed.
    public let kind: Kind
    /// A human-readable explanation.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The kind and the explanation, as `FleetError.timedOut: …`.
    public var description: String {
        "FleetError.\(kind.rawValue): \(message)"
    }
}

/// Runs `operation` with a time limit: the engines' statements and file locks are bounded so that
/// a hung engine is a failed one. The caller gets the first of the result and the time-out; an
/// operation that ignores cancellation finishes in the background (a task group would wait for it).
func withFleetTimeout<T: Sendable>(
    _ seconds: TimeInterval, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let once = LockedState<CheckedContinuation<T, Error>?>.make(nil)
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
        once.withLock { $0 = continuation }
        let work = Task(executorPreference: FleetExecutor.shared) {
            let result: Result<T, Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            return result
        }
        let timer = Task(executorPreference: FleetExecutor.shared) {
            try? await Task.sleep(nanoseconds: UInt64(min(max(0.001, seconds), 3_600) * 1e9))
            guard !Task.isCancelled, let pending = once.withLock({ stored in defer { stored = nil }; return stored }) else { return }
            work.cancel()
            pending.resume(throwing: FleetError(.timedOut, "\(what) took more than \(String(format: "%.3g", seconds)) s"))
        }
        Task(executorPreference: FleetExecutor.shared) {
            let result = await work.value
            timer.cancel()
            once.withLock { stored in defer { stored = nil }; return stored }?.resume(with: result)
        }
    }
}
