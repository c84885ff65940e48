import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// OAuth 2.0 bearer authentication with refresh done right: single-flight, every request paused
/// while it runs, exact replays, rotation that survives restarts.
///
/// ```swift
/// let auth = OAuthAuthenticator(
///     store: FileCredentialStore(url: stateDirectory.appendingPathComponent("token.json")),
///     refresher: .tokenEndpoint(tokenURL, clientID: "daemon", clientSecret: secret))
/// let client = HTTPClient(baseURL: api, authenticator: auth)
/// ```
///
/// - Every request whose `requiresAuthentication` is true (the default) gets
///   `Authorization: <type> <access token>` from the current credential.
/// - **Single-flight**: at most one refresh runs at a time. While it runs, every authenticated
///   request of the client waits (none is sent with the credential being replaced); the refresh
///   request itself bypasses that wait and `suspend()`.
/// - **Exact replays**: a request answered with one of `unauthorizedStatusCodes` (401 by default) is
///   replayed once with the next credential; a second unauthorized answer fails it with
///   `.unacceptableStatusCode`. A request that was sent with an older credential than the current one
///   is replayed without a new refresh (credential versions, never a time window).
/// - **Proactive**: a credential that expires within `refreshSkew` seconds (30 by default) is
///   refreshed before it is used.
/// - **Storm guard**: more than `maxRefreshes` refreshes within `refreshWindow` seconds (5 in 30 by
///   default) fail with `.refreshFailed` instead of refreshing again.
/// - **Failures**: the server rejects the refresh (400 `invalid_grant`, 401, …) → every waiting
///   request fails with `.refreshFailed`, the credential is cleared from the store, and
///   `didLoseAuthentication` emits. The refresh fails for transport reasons → the credential is kept
///   (never sign out because the network is down) and the waiting requests fail with that error; the
///   refresh itself is retried under the client's retry policy (when the host is reachable again)
///   first.
/// - **Rotation**: the new credential is written to the store before it is used; if that write
///   fails, the waiting requests fail with `.refreshFailed` and the new credential is kept in memory
///   only (the old refresh token may already be spent).
/// - No credential at all (none stored) fails authenticated requests with `.refreshFailed` before
///   sending; a store that cannot be read fails them with `.refreshFailed` wrapping the
///   `CredentialStoreError`, and `didLoseAuthentication` says so.
///
/// Tokens never reach logs, events or error descriptions.
///
/// - Note: Thread-safe. One authenticator belongs to one client (the first it is attached to, which
///   also sends the token endpoint's refresh). Time (expiry, the storm window) is read from
///   `scheduler.now`.
public final class OAuthAuthenticator: Authenticator {
    private enum Refresh {
        case idle
        case running(subscription: Disposable?)
    }

    private struct Waiter {
        let completion: @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void
    }

    private struct State {
        var loaded = false
        var credential: OAuthCredential?
        var version: UInt64 = 1
        var refresh = Refresh.idle
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
        var refreshStarts: [Date] = []
        var refreshCount = 0
    }

    /// What to do after a decision taken under the lock.
    private enum Decision {
        case answer(Result<AuthenticationTicket, HTTPClientError>)
        case wait(Int)
        case startRefresh(Int, OAuthCredential)
        case failAll([Waiter], HTTPClientError)
    }

    /// The statuses that mean "not authorized"; default 401.
    public let unauthorizedStatusCodes: Set<Int>
    /// Seconds before expiry at which a credential is refreshed before use; default 30.
    public let refreshSkew: TimeInterval
    /// The most refreshes allowed within `refreshWindow`; default 5.
    public let maxRefreshes: Int
    /// The storm guard's window in seconds; default 30.
    public let refreshWindow: TimeInterval

    /// Emits the error each time the credential is lost: the server rejected the refresh (the
    /// credential was cleared), or the store could not be read. Subscribe to sign the user in again.
    /// Never completes.
    ///
    /// - Note: Events arrive on the thread that ended the refresh, before the requests that waited
    ///   for it fail.
    public let didLoseAuthentication: Observable<HTTPClientError>

    private let store: any CredentialStore
    private let refresher: TokenRefresher
    private let scheduler: SchedulerType
    private let lost = PublishSubject<HTTPClientError>()
    private let state = LockedState<State>.make(State())
    private let client = LockedState<WeakClient>.make(WeakClient())

    /// Creates an authenticator.
    ///
    /// - Parameters:
    ///   - store: Where the credential lives (`FileCredentialStore` for daemons,
    ///     `InMemoryCredentialStore(credential)` otherwise).
    ///   - refresher: How to get a new credential.
    ///   - unauthorizedStatusCodes: Statuses that mean "not authorized"; default `[401]` (add 403 for
    ///     servers that answer so).
    ///   - refreshSkew: Seconds before expiry to refresh proactively; clamped to 0...86,400.
    ///   - maxRefreshes: Refreshes allowed per `refreshWindow`; at least 1.
    ///   - refreshWindow: The storm guard's window in seconds; clamped to 0...86,400.
    ///   - scheduler: The clock for expiry and the storm window (a `TestScheduler` in tests);
    ///     default a serial queue of its own, never the global pool (whose threads blocked callers
    ///     may hold).
    public init(
        store: any CredentialStore,
        refresher: TokenRefresher,
        unauthorizedStatusCodes: Set<Int> = [401],
        refreshSkew: TimeInterval = 30,
        maxRefreshes: Int = 5,
        refreshWindow: TimeInterval = 30,
        scheduler: SchedulerType = SerialDispatchQueueScheduler(internalSerialQueueName: "RxHTTP.OAuthAuthenticator.clock")
    ) {
        self.store = store
        self.refresher = refresher
        self.unauthorizedStatusCodes = unauthorizedStatusCodes
        self.refreshSkew = min(TimeoutBounds.clampedWait(refreshSkew), 86_400)
        self.maxRefreshes = max(1, maxRefreshes)
        self.refreshWindow = min(TimeoutBounds.clampedWait(refreshWindow), 86_400)
        self.scheduler = scheduler
        self.didLoseAuthentication = lost.asObservable()
    }

    public func attach(_ client: HTTPClient) {
        self.client.withLock { weak in
            if weak.client == nil { weak.client = client }
        }
    }

    /// How many refreshes have started since creation (a credential adopted from a sibling through a
    /// fleet's store is not one).
    ///
    /// - Note: Thread-safe.
    public var refreshCount: Int {
        state.withLock { $0.refreshCount }
    }

    /// The current credential (read from the store on first use).
    ///
    /// - Throws: The store's `CredentialStoreError` if it cannot be read.
    /// - Note: Thread-safe.
    public func currentCredential() throws -> OAuthCredential? {
        try loadIfNeeded()
        return state.withLock { $0.credential }
    }

    /// Replaces the credential (after a sign-in): writes it to the store, then hands it to every
    /// waiting request and to new ones.
    ///
    /// - Throws: The store's error; the credential is then not used.
    /// - Note: Thread-safe.
    public func update(_ credential: OAuthCredential) throws {
        try store.save(credential)
        let (waiters, ticket, running) = state.withLock { state -> ([Waiter], AuthenticationTicket, Disposable?) in
            state.loaded = true
            state.credential = credential
            state.version += 1
            var running: Disposable?
            if case .running(let subscription) = state.refresh { running = subscription }
            state.refresh = .idle
            defer { state.waiters = [:] }
            return (Array(state.waiters.values), Self.ticket(credential, state.version), running)
        }
        running?.dispose()
        for waiter in waiters { waiter.completion(.success(ticket)) }
    }

    /// Forgets the credential (signing out): clears the store; authenticated requests then fail with
    /// `.refreshFailed` until `update(_:)`.
    ///
    /// - Throws: The store's error.
    public func signOut() throws {
        try store.clear()
        state.withLock { state in
            state.loaded = true
            state.credential = nil
            state.version += 1
        }
    }

    // MARK: Authenticator

    public func ticket(_ completion: @escaping @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void) -> Disposable {
        if let failure = loadFailure() {
            completion(.failure(failure))
            return Disposables.create()
        }
        let now = scheduler.now
        let decision = state.withLock { state -> Decision in
            if case .running = state.refresh {
                return .wait(Self.enqueue(Waiter(completion: completion), in: &state))
            }
            guard let credential = state.credential else {
                return .answer(.failure(Self.notSignedIn()))
            }
            guard credential.expires(within: refreshSkew, of: now) else {
                return .answer(.success(Self.ticket(credential, state.version)))
            }
            let token = Self.enqueue(Waiter(completion: completion), in: &state)
            return begin(&state, credential: credential, now: now, waiter: token)
        }
        return act(decision, completion: completion)
    }

    public func unauthorized(
        with ticket: AuthenticationTicket,
        _ completion: @escaping @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void
    ) -> Disposable {
        let now = scheduler.now
        let decision = state.withLock { state -> Decision in
            if case .running = state.refresh {
                return .wait(Self.enqueue(Waiter(completion: completion), in: &state))
            }
            guard let credential = state.credential else {
                return .answer(.failure(Self.notSignedIn()))
            }
            if ticket.version < state.version {
                // Sent with an older credential than the current one: replay, no refresh.
                return .answer(.success(Self.ticket(credential, state.version)))
            }
            let token = Self.enqueue(Waiter(completion: completion), in: &state)
            return begin(&state, credential: credential, now: now, waiter: token)
        }
        return act(decision, completion: completion)
    }

    /// Whether `ticket` is still the one to sign with: the current version, and no refresh running.
    public func isCurrent(_ ticket: AuthenticationTicket) -> Bool {
        state.withLock { state in
            if case .running = state.refresh { return false }
            return state.version == ticket.version && state.credential != nil
        }
    }

    // MARK: Refresh

    /// Under the lock: starts a refresh, or fails every waiter if the storm guard says no.
    private func begin(_ state: inout State, credential: OAuthCredential, now: Date, waiter: Int) -> Decision {
        state.refreshStarts.removeAll { now.timeIntervalSince($0) >= refreshWindow }
        guard state.refreshStarts.count < maxRefreshes else {
            defer { state.waiters = [:] }
            return .failAll(Array(state.waiters.values), HTTPClientError(
                .refreshFailed,
                message: "more than \(maxRefreshes) refreshes within \(Int(refreshWindow)) s: the server keeps refusing fresh credentials",
                phase: .notSent
            ))
        }
        state.refreshStarts.append(now)
        state.refreshCount += 1
        state.refresh = .running(subscription: nil)
        return .startRefresh(waiter, credential)
    }

    private func act(
        _ decision: Decision,
        completion: @escaping @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void
    ) -> Disposable {
        switch decision {
        case .answer(let result):
            completion(result)
            return Disposables.create()
        case .wait(let token):
            return cancellation(of: token)
        case .startRefresh(let token, let credential):
            startRefresh(from: credential)
            return cancellation(of: token)
        case .failAll(let waiters, let error):
            for waiter in waiters { waiter.completion(.failure(error)) }
            return Disposables.create()
        }
    }

    private func cancellation(of token: Int) -> Disposable {
        Disposables.create { [weak self] in
            self?.state.withLock { _ = $0.waiters.removeValue(forKey: token) }
        }
    }

    private func startRefresh(from credential: OAuthCredential) {
        let client = self.client.withLock { $0.client }
        client?.emitEvent(.authRefreshStarted)
        let subscription: Disposable
        if let shared = store as? any SharedCredentialStore {
            subscription = refreshShared(credential, in: shared, client: client)
        } else {
            subscription = refresher.refresh(credential, client) { [weak self] result in
                switch result {
                case .success(let fresh): self?.refreshSucceeded(fresh)
                case .failure(let error): self?.refreshFailed(error)
                }
            }
        }
        let stale = state.withLock { state -> Bool in
            guard case .running(subscription: .none) = state.refresh else { return true }
            state.refresh = .running(subscription: subscription)
            return false
        }
        if stale {
            // It already ended (a synchronous refresher), or `update` replaced it.
            subscription.dispose()
        }
    }

    /// A refresh through a store shared by several processes (a fleet's): under its lock, a
    /// sibling's newer credential adopted instead of refreshing, a refusal answered by re-reading.
    private func refreshShared(_ credential: OAuthCredential, in shared: any SharedCredentialStore, client: HTTPClient?) -> Disposable {
        let skew = refreshSkew
        let scheduler = self.scheduler
        let refresher = self.refresher
        return shared.coordinateRefresh(
            held: credential,
            isUsable: { !$0.expires(within: skew, of: scheduler.now) },
            refresh: { credential, completion in refresher.refresh(credential, client, completion) }
        ) { [weak self] outcome in
            switch outcome {
            case .adopted(let newer): self?.refreshSucceeded(newer, stored: true, adopted: true)
            case .refreshed(let fresh): self?.refreshSucceeded(fresh, stored: true)
            // The fleet's store takes it when its engine is back; meanwhile requests go on with it.
            case .refreshedUnsaved(let fresh, _): self?.refreshSucceeded(fresh, stored: true)
            case .failed(let error): self?.refreshFailed(error, mayClear: false)
            case .rejected(let error): self?.refreshFailed(error, alreadyCleared: true)
            case .missing: self?.refreshFailed(Self.notSignedIn(), alreadyCleared: true)
            }
        }
    }

    /// - Parameters:
    ///   - stored: The credential is in the store already (a shared store wrote it under its lock).
    ///   - adopted: A sibling refreshed it: no refresh ran here, so none counts against the storm guard.
    private func refreshSucceeded(_ fresh: OAuthCredential, stored: Bool = false, adopted: Bool = false) {
        var saveError: Error?
        do {
            // Written before use: the old refresh token may be spent already.
            if !stored { try store.save(fresh) }
        } catch {
            saveError = error
        }
        let (waiters, ticket) = state.withLock { state -> ([Waiter], AuthenticationTicket) in
            if adopted {
                if !state.refreshStarts.isEmpty { state.refreshStarts.removeLast() }
                state.refreshCount -= 1
            }
            state.loaded = true
            state.credential = fresh
            state.version += 1
            state.refresh = .idle
            defer { state.waiters = [:] }
            return (Array(state.waiters.values), Self.ticket(fresh, state.version))
        }
        let result: Result<AuthenticationTicket, HTTPClientError> = saveError.map { error in
            .failure(HTTPClientError(
                .refreshFailed, message: "the refreshed credential could not be stored", underlying: error, phase: .notSent
            ))
        } ?? .success(ticket)
        client.withLock { $0.client }?.emitEvent(.authRefreshEnded(succeeded: saveError == nil, code: saveError == nil ? nil : .refreshFailed))
        for waiter in waiters { waiter.completion(result) }
    }

    /// - Parameters:
    ///   - mayClear: A rejection clears the store (false: a shared store decided to keep it).
    ///   - alreadyCleared: A shared store cleared it under its lock.
    private func refreshFailed(_ error: Error, mayClear: Bool = true, alreadyCleared: Bool = false) {
        let failure = Self.refreshFailure(error)
        let rejected = failure.code == .refreshFailed && (mayClear || alreadyCleared)
        if rejected, !alreadyCleared {
            try? store.clear()
        }
        let waiters = state.withLock { state -> [Waiter] in
            if rejected {
                state.credential = nil
                state.version += 1
            }
            state.refresh = .idle
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        client.withLock { $0.client }?.emitEvent(.authRefreshEnded(succeeded: false, code: failure.code))
        // Said before the waiting requests fail with it: whoever sees a request fail for it has
        // already been told (a caller checking `didLoseAuthentication` after a failure saw it).
        if rejected {
            lost.onNext(failure)
        }
        for waiter in waiters { waiter.completion(.failure(failure)) }
    }

    /// A rejection as `.refreshFailed`; a failure that may pass as it is.
    static func refreshFailure(_ error: Error) -> HTTPClientError {
        if let error = error as? HTTPClientError {
            if error.code == .refreshFailed { return error }
            if error.isTransientFailure { return error }
            return TokenRefreshRequest.refreshError(from: error)
        }
        if error.isTransient {
            return HTTPClientError(.transport, message: "the refresh failed: \(HTTPClientError.describe(error))", underlying: error)
        }
        return HTTPClientError(.refreshFailed, message: "the refresh was refused: \(HTTPClientError.describe(error))", underlying: error)
    }

    // MARK: Helpers

    /// Loads the credential on first use; a store that cannot be read fails requests (and says so
    /// on `didLoseAuthentication`, once per attempt to load).
    private func loadFailure() -> HTTPClientError? {
        do {
            try loadIfNeeded()
            return nil
        } catch {
            let failure = HTTPClientError(
                .refreshFailed, message: "the credential store cannot be read: \(error)", underlying: error, phase: .notSent
            )
            lost.onNext(failure)
            return failure
        }
    }

    private func loadIfNeeded() throws {
        guard !state.withLock({ $0.loaded }) else { return }
        let credential = try store.load()
        state.withLock { state in
            guard !state.loaded else { return }
            state.loaded = true
            state.credential = credential
        }
    }

    private static func enqueue(_ waiter: Waiter, in state: inout State) -> Int {
        state.nextWaiter += 1
        state.waiters[state.nextWaiter] = waiter
        return state.nextWaiter
    }

    private static func ticket(_ credential: OAuthCredential, _ version: UInt64) -> AuthenticationTicket {
        AuthenticationTicket(headerValue: credential.authorizationValue, version: version)
    }

    private static func notSignedIn() -> HTTPClientError {
        HTTPClientError(.refreshFailed, message: "no credential: sign in first (OAuthAuthenticator.update(_:))", phase: .notSent)
    }
}

/// The client an authenticator refreshes through, held weakly (the client holds the authenticator).
struct WeakClient: Sendable {
    weak var client: HTTPClient?
}
