import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// A credential shared by the replicas of a `Fleet` (`fleet.credentialStore(named:)`), for
/// `OAuthAuthenticator(store:refresher:)`.
///
/// With this store the authenticator keeps every in-process guarantee (single flight, exact
/// replays, the storm guard, never signing out because the network is down) and adds the fleet's:
///
/// - **One refresh per expiry in the fleet.** A refresh runs under a fleet-wide lock. The replica
///   that gets the lock reads the store first: a credential other than the one it holds, still
///   usable, was stored by a sibling that refreshed a moment ago — it is used, and no refresh runs.
/// - **`invalid_grant` after a sibling rotated is answered by re-reading**, never by clearing: the
///   store is cleared only when the refresh token it still holds is the one the server refused.
/// - **A dead holder never wedges the fleet**: the lock dies with its process (same host) or its
///   database session (PostgreSQL).
/// - **The engine away**: when the lock cannot be had because the engine fails, the replica
///   refreshes on its own (requests go on) and stores the result as soon as it can.
///
/// `load`, `save` and `clear` are also callable directly (to sign in once for the whole fleet);
/// they block the calling thread for at most the fleet's `operationTimeout` — do not call them from
/// an async context or an event loop.
///
/// - Note: Thread-safe.
public final class FleetCredentialStore: CredentialStore {
    /// The credential's name in the fleet.
    public let name: String
    /// The fleet it belongs to.
    public let fleet: Fleet
    /// How long a refresh waits for a sibling's refresh to end before it gives up (failing its
    /// requests with a transient `.timedOut`, the credential kept): 60 s.
    static let lockWait: TimeInterval = 60

    init(name: String, fleet: Fleet) {
        self.name = name
        self.fleet = fleet
    }

    private var lockName: String {
        "credential:" + name
    }

    public func load() throws -> OAuthCredential? {
        try Self.decode(try blocking { [name] engine in try await engine.readCredential(named: name) })
    }

    public func save(_ credential: OAuthCredential) throws {
        let data = try Self.encode(credential)
        try blocking { [name] engine in try await engine.writeCredential(named: name, data) }
    }

    public func clear() throws {
        try blocking { [name] engine in try await engine.writeCredential(named: name, nil) }
    }

    /// Runs one engine operation and waits for it on this thread (bounded by the fleet's time-out).
    private func blocking<T: Sendable>(_ operation: @escaping @Sendable (any FleetEngine) async throws -> T) throws -> T {
        let outcome = LockedState<Result<T, Error>?>.make(nil)
        let done = DispatchSemaphore(value: 0)
        let fleet = self.fleet
        Task(executorPreference: FleetExecutor.shared) {
            let result: Result<T, Error>
            do { result = .success(try await fleet.perform("the credential store", operation)) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            throw CredentialStoreError(.unreadable, path: nil, message: "the fleet's credential store gave no answer")
        }
        do {
            return try result.get()
        } catch let error as CredentialStoreError {
            throw error
        } catch {
            throw CredentialStoreError(.unreadable, path: nil, message: "the fleet's credential \(name) cannot be reached: \(error)")
        }
    }

    private static func decode(_ data: Data?) throws -> OAuthCredential? {
        guard let data else { return nil }
        do {
            return try JSONDecoder.credentials.decode(OAuthCredential.self, from: data)
        } catch {
            throw CredentialStoreError(.corrupt, path: nil, message: "the fleet's credential is not a valid credential (\(data.count) bytes)")
        }
    }

    private static func encode(_ credential: OAuthCredential) throws -> Data {
        do {
            return try JSONEncoder.credentials.encode(credential)
        } catch {
            throw CredentialStoreError(.unwritable, path: nil, message: "the credential cannot be encoded")
        }
    }
}

/// What a coordinated refresh came to.
enum SharedRefreshOutcome: Sendable {
    /// A sibling's newer credential, usable: no refresh ran here.
    case adopted(OAuthCredential)
    /// Refreshed here and stored.
    case refreshed(OAuthCredential)
    /// Refreshed here; storing it failed (`Error`): kept in memory, stored at the next chance.
    case refreshedUnsaved(OAuthCredential, Error)
    /// The refresh failed for transport reasons (or the lock stayed with a sibling): keep the
    /// credential.
    case failed(Error)
    /// The server refused the refresh token the store still held: the store was cleared.
    case rejected(Error)
    /// The store holds no credential: sign in first.
    case missing
}

/// A credential store shared by several processes: the authenticator refreshes through it.
protocol SharedCredentialStore: CredentialStore {
    /// Refreshes `held` under the fleet-wide lock, unless a sibling already did; see
    /// `FleetCredentialStore`.
    ///
    /// - Parameters:
    ///   - isUsable: Whether a stored credential may be used as it is (not expiring).
    ///   - refresh: Runs the refresh itself (the authenticator's refresher).
    /// - Returns: Disposing it cancels the wait or the refresh (the completion is then not called).
    func coordinateRefresh(
        held: OAuthCredential,
        isUsable: @escaping @Sendable (OAuthCredential) -> Bool,
        refresh: @escaping @Sendable (OAuthCredential, @escaping @Sendable (Result<OAuthCredential, Error>) -> Void) -> Disposable,
        completion: @escaping @Sendable (SharedRefreshOutcome) -> Void
    ) -> Disposable
}

extension FleetCredentialStore: SharedCredentialStore {
    func coordinateRefresh(
        held: OAuthCredential,
        isUsable: @escaping @Sendable (OAuthCredential) -> Bool,
        refresh: @escaping @Sendable (OAuthCredential, @escaping @Sendable (Result<OAuthCredential, Error>) -> Void) -> Disposable,
        completion: @escaping @Sendable (SharedRefreshOutcome) -> Void
    ) -> Disposable {
        let inner = LockedState<(refresh: Disposable?, cancelled: Bool)>.make((nil, false))
        /// The refresh as an async step; disposing the whole cancels it.
        let runRefresh: @Sendable (OAuthCredential) async -> Result<OAuthCredential, Error> = { credential in
            await withCheckedContinuation { continuation in
                let once = LockedState<Bool>.make(false)
                let finish: @Sendable (Result<OAuthCredential, Error>) -> Void = { result in
                    guard once.withLock({ done in defer { done = true }; return !done }) else { return }
                    continuation.resume(returning: result)
                }
                let subscription = refresh(credential, finish)
                let cancelled = inner.withLock { state -> Bool in
                    state.refresh = subscription
                    return state.cancelled
                }
                if cancelled {
                    subscription.dispose()
                    finish(.failure(HTTPClientError(.cancelled, message: "the refresh was cancelled", phase: .notSent)))
                }
            }
        }
        let task = Task(executorPreference: FleetExecutor.shared) { [self] in
            let outcome = await coordinate(held: held, isUsable: isUsable, runRefresh: runRefresh)
            guard !inner.withLock({ $0.cancelled }) else { return }
            completion(outcome)
        }
        return Disposables.create {
            let running = inner.withLock { state -> Disposable? in
                state.cancelled = true
                return state.refresh
            }
            task.cancel()
            running?.dispose()
        }
    }

    private func coordinate(
        held: OAuthCredential,
        isUsable: @escaping @Sendable (OAuthCredential) -> Bool,
        runRefresh: @escaping @Sendable (OAuthCredential) async -> Result<OAuthCredential, Error>
    ) async -> SharedRefreshOutcome {
        let name = self.name
        let fleet = self.fleet
        do {
            return try await fleet.engine.withLock(lockName, wait: Self.lockWait) {
                let stored = try Self.decode(try await fleet.perform("reading the credential") { try await $0.readCredential(named: name) })
                guard let stored else { return .missing }
                if stored != held, isUsable(stored) { return .adopted(stored) }
                // The freshest refresh token is the stored one (ours, or a sibling's newer one).
                switch await runRefresh(stored) {
                case .success(let fresh):
                    do {
                        try await fleet.perform("storing the credential") { try await $0.writeCredential(named: name, try Self.encode(fresh)) }
                        return .refreshed(fresh)
                    } catch {
                        storeLater(fresh, replacing: stored)
                        return .refreshedUnsaved(fresh, error)
                    }
                case .failure(let error):
                    guard OAuthAuthenticator.refreshFailure(error).code == .refreshFailed else { return .failed(error) }
                    // Refused: unless a sibling stored another credential meanwhile (it refreshed
                    // without the lock while the engine was away), the one refused is gone.
                    let now = try? Self.decode(try await fleet.perform("reading the credential") { try await $0.readCredential(named: name) })
                    if let now, now != stored { return .adopted(now) }
                    try? await fleet.perform("clearing the credential") { try await $0.writeCredential(named: name, nil) }
                    return .rejected(error)
                }
            }
        } catch let error as FleetError where error.kind == .busy {
            // A sibling held the lock for the whole wait: maybe it stored a new credential.
            if let now = try? Self.decode(try await fleet.perform("reading the credential") { try await $0.readCredential(named: name) }),
               now != held, isUsable(now) {
                return .adopted(now)
            }
            return .failed(HTTPClientError(.timedOut, message: "a sibling's refresh of \(name) did not end within \(Int(Self.lockWait)) s", underlying: error, phase: .notSent))
        } catch {
            guard !Task.isCancelled else { return .failed(error) }
            // The engine is away: refresh alone, so that requests go on; store it when possible.
            switch await runRefresh(held) {
            case .success(let fresh):
                storeLater(fresh, replacing: held)
                return .refreshedUnsaved(fresh, error)
            case .failure(let refreshError):
                return .failed(refreshError)
            }
        }
    }

    /// Stores a credential refreshed while the engine was away once it is back (every second, for
    /// up to ten minutes), under the lock and only if the store still holds the one it replaced: a
    /// sibling's later credential is never overwritten.
    private func storeLater(_ fresh: OAuthCredential, replacing old: OAuthCredential) {
        let name = self.name
        let lockName = self.lockName
        Task(executorPreference: FleetExecutor.shared) { [weak fleet] in
            for _ in 0..<600 {
                try? await Task.sleep(nanoseconds: 1_000_000_000)
                guard let fleet else { return }
                let stored = try? await fleet.engine.withLock(lockName, wait: 1) {
                    let now = try Self.decode(try await fleet.perform("reading the credential") { try await $0.readCredential(named: name) })
                    guard now == nil || now == old else { return true }
                    try await fleet.perform("storing the credential") { try await $0.writeCredential(named: name, try Self.encode(fresh)) }
                    return true
                }
                if stored == true { return }
            }
        }
    }
}
