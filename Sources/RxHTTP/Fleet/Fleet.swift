import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// The replicas of one daemon, sharing what one client shares between its calls: one credential
/// refresh per expiry, one quota, every cooldown and open circuit.
///
/// ```swift
/// let fleet = try Fleet.sameHost(directory: stateDirectory.appendingPathComponent("fleet"))
/// var configuration = HTTPClient.Configuration()
/// configuration.fleet = fleet
/// configuration.hostProtection = HostProtection(rateLimit: RateLimit(requests: 50, per: 1, burst: 5, scope: .fleet))
/// let auth = OAuthAuthenticator(store: fleet.credentialStore(named: "billing"), refresher: refresher)
/// let client = HTTPClient(baseURL: api, configuration: configuration, authenticator: auth)
/// ```
///
/// Two engines behind one type: `sameHost(directory:)` (replicas on one machine: file locks, no
/// dependency) and `postgreSQL(_:namespace:)` (trait `PostgreSQL`: replicas anywhere). A fleet is
/// shared by any number of clients of the process; each process joins once (create one `Fleet` per
/// process and engine).
///
/// - **Membership**: the fleet heartbeats every `heartbeatInterval` seconds from creation on;
///   `members` shows the replicas alive now; one that stops heartbeating leaves after three
///   intervals (on one host, at once when its process dies) and its quota leases return.
/// - **The engine failing never stops requests**: every engine operation is bounded by
///   `operationTimeout`; while the engine fails, each replica falls back to its own protection (its
///   share of a fleet quota, local cooldowns), `engineAvailability` and the clients' events
///   (`.fleetEngineChanged`) say so, and it rejoins when an operation succeeds again.
///
/// - Note: Thread-safe. Timers run on the fleet's own queue; nothing is delivered under its lock.
// @unchecked Sendable: mutable state (a Dispatch timer among it) lives in one LockedState; the other
// properties are immutable.
public final class Fleet: @unchecked Sendable {
    /// A listener of one client (its host registry): signals about hosts and engine changes.
    struct Listener: Sendable {
        let onSignal: @Sendable (FleetSignal) -> Void
        let onEngineChange: @Sendable (Bool) -> Void
    }

    private struct State {
        var members: [FleetMember] = []
        var engineAvailable = true
        var listeners: [Int: Listener] = [:]
        var nextListener = 0
        /// The latest cooldown or open circuit each host is under, from a sibling or ourselves, so
        /// that a host first used after the word arrived starts paused too.
        var pauses: [String: FleetSignal] = [:]
        var quotas: [String: FleetQuota] = [:]
        var heartbeat: DispatchSourceTimer?
        var left = false
        var operations = 0
    }

    /// This process as a member of the fleet.
    public let member: FleetMember
    /// Seconds between heartbeats; a member missing three is gone.
    public let heartbeatInterval: TimeInterval
    /// The longest any engine operation may take before it counts as failed.
    public let operationTimeout: TimeInterval

    let engine: any FleetEngine
    let queue = DispatchQueue(label: "RxHTTP.Fleet")
    /// Where the fleet says what happens to it (the engine away and back, members joining and
    /// leaving): one line each, never a credential.
    private let log: (@Sendable (String) -> Void)?
    private let state = LockedState<State>.make(State())
    private let membersSubject: BehaviorSubject<[FleetMember]>
    private let availabilitySubject = BehaviorSubject<Bool>(value: true)

    init(engine: any FleetEngine, heartbeatInterval: TimeInterval, operationTimeout: TimeInterval, log: (@Sendable (String) -> Void)?) {
        self.engine = engine
        self.log = log
        self.member = FleetMember.current()
        self.heartbeatInterval = min(max(0.05, heartbeatInterval.isNaN ? 1 : heartbeatInterval), 600)
        self.operationTimeout = min(max(0.05, operationTimeout.isNaN ? 2 : operationTimeout), 600)
        self.membersSubject = BehaviorSubject(value: [member])
        state.withLock { $0.members = [member] }
        engine.watchSignals(as: member) { [weak self] signal in self?.received(signal) }
        startHeartbeat()
    }

    deinit {
        let timer = state.withLock { $0.heartbeat }
        timer?.cancel()
        engine.close()
    }

    /// A fleet of replicas on this machine, coordinated through `directory` (created with mode 0700
    /// if missing): `flock` locks that die with their process, files replaced atomically (0600), a
    /// 50 ms watch of the siblings' signals. No dependency.
    ///
    /// - Parameters:
    ///   - directory: A directory of the daemon's own, the same for every replica.
    ///   - heartbeatInterval: Seconds between heartbeats, 0.05...600; default 1.
    ///   - operationTimeout: Seconds an operation (a lock, a lease) may take, 0.05...600; default 2.
    ///   - log: Told, one line at a time, when the engine goes away or comes back and when members
    ///     join or leave (a `Logger`'s `info`, `print`); nil for silence. Called on the fleet's threads.
    /// - Throws: `FleetError.unavailable` when the directory cannot be created or written.
    public static func sameHost(
        directory: URL, heartbeatInterval: TimeInterval = 1, operationTimeout: TimeInterval = 2, log: (@Sendable (String) -> Void)? = nil
    ) throws -> Fleet {
        Fleet(engine: try SameHostFleetEngine(directory: directory), heartbeatInterval: heartbeatInterval, operationTimeout: operationTimeout, log: log)
    }

    // MARK: Public

    /// The replicas alive now (this one included), oldest first; replays the latest list and emits
    /// each change. Never completes.
    ///
    /// - Note: Lists arrive on the fleet's queue.
    public var members: Observable<[FleetMember]> {
        membersSubject.asObservable().distinctUntilChanged()
    }

    /// Whether the engine answers; replays the latest and emits each change. While false each
    /// replica runs on its own protection.
    public var engineAvailability: Observable<Bool> {
        availabilitySubject.asObservable().distinctUntilChanged()
    }

    /// How many engine operations this process ran (leases, locks, reads and writes, heartbeats,
    /// signals): what the fleet costs the engine, for benchmarks.
    @_spi(RxNetworkKitInternals) public var engineOperationCount: Int {
        state.withLock { $0.operations }
    }

    /// Whether the engine answered the last operation.
    public var isEngineAvailable: Bool {
        state.withLock { $0.engineAvailable }
    }

    /// How many replicas are alive (at least this one), as of the last heartbeat.
    public var memberCount: Int {
        state.withLock { max(1, $0.members.count) }
    }

    /// A credential store shared by the fleet, for `OAuthAuthenticator(store:refresher:)`: the
    /// authenticator refreshes under a fleet-wide lock, so that a rotating refresh token is spent
    /// once per expiry in the whole fleet.
    ///
    /// - Parameter name: The credential's name (one per account); any string, stored under a
    ///   derived file or key name.
    public func credentialStore(named name: String) -> FleetCredentialStore {
        FleetCredentialStore(name: name, fleet: self)
    }

    /// Leaves the fleet now: stops heartbeating, gives back every quota lease, removes this member
    /// (siblings see it gone at their next heartbeat) and stops watching. Requests keep working,
    /// on local protection. Idempotent.
    public func leave() async {
        let (timer, quotas, first) = state.withLock { state -> (DispatchSourceTimer?, [FleetQuota], Bool) in
            defer { state.heartbeat = nil; state.left = true }
            return (state.heartbeat, Array(state.quotas.values), !state.left)
        }
        timer?.cancel()
        guard first else { return }
        for quota in quotas {
            if let request = quota.settleForLeaving() {
                _ = try? await withFleetTimeout(operationTimeout, "a quota give-back") { [engine] in try await engine.lease(request) }
            }
        }
        await engine.leave(member)
        engine.close()
    }

    // MARK: Clients

    /// Registers a client's listener; the returned token removes it.
    func addListener(_ listener: Listener) -> Int {
        state.withLock { state in
            state.nextListener += 1
            state.listeners[state.nextListener] = listener
            return state.nextListener
        }
    }

    func removeListener(_ token: Int) {
        state.withLock { _ = $0.listeners.removeValue(forKey: token) }
    }

    /// The cooldown or open circuit `origin` is under now, if any (wall clock).
    func pause(of origin: String) -> FleetSignal? {
        let now = Date().timeIntervalSince1970
        return state.withLock { state in
            guard let pause = state.pauses[origin] else { return nil }
            guard pause.until > now else {
                state.pauses[origin] = nil
                return nil
            }
            return pause
        }
    }

    /// This process's lease account for `limit` at `origin`, shared by its clients.
    func quota(for origin: String, limit: RateLimit) -> FleetQuota {
        let key = "\(origin)|\(limit.requests)/\(limit.per)/\(limit.burst)"
        return state.withLock { state in
            if let existing = state.quotas[key] { return existing }
            let quota = FleetQuota(bucket: key, limit: limit, fleet: self, queue: queue)
            state.quotas[key] = quota
            return quota
        }
    }

    /// The quota accounts of this process (tests and diagnostics).
    var quotasForTests: [FleetQuota] {
        state.withLock { Array($0.quotas.values) }
    }

    /// Tells the siblings about a host (in the background; a failure marks the engine away).
    func publish(_ kind: FleetSignal.Kind, origin: String, until: Date?, statusCode: Int?) {
        let signal = FleetSignal(
            origin: origin, kind: kind, until: until?.timeIntervalSince1970 ?? 0, statusCode: statusCode, from: member.id
        )
        remember(signal)
        run("publishing to the fleet", { engine in try await engine.publish(signal) }) { _ in }
    }

    /// Runs one engine operation with the time limit; success or failure moves the availability.
    ///
    /// The time-out is a Dispatch timer on the fleet's own queue, and a timed-out operation's
    /// completion runs there: a process whose threads of the shared pool are all blocked (callers
    /// waiting on semaphores for requests that wait for the fleet's quota) still falls back to its
    /// own protection instead of waiting for a thread that never comes.
    func run<T: Sendable>(
        _ what: String, _ operation: @escaping @Sendable (any FleetEngine) async throws -> T,
        completion: @escaping @Sendable (Result<T, Error>) -> Void
    ) {
        let engine = self.engine
        let pending = LockedState<(@Sendable (Result<T, Error>) -> Void)?>.make(completion)
        let finish: @Sendable (Result<T, Error>) -> Void = { [weak self] result in
            guard let completion = pending.withLock({ stored in defer { stored = nil }; return stored }) else { return }
            self?.noteEngine(result.map { _ in () }, what: what)
            completion(result)
        }
        let work = Task(executorPreference: FleetExecutor.shared) {
            do {
                finish(.success(try await operation(engine)))
            } catch {
                finish(.failure(error))
            }
        }
        let timeout = operationTimeout
        queue.asyncAfter(deadline: .now() + timeout) {
            guard pending.withLock({ $0 != nil }) else { return }
            work.cancel()
            finish(.failure(FleetError(.timedOut, "\(what) took more than \(String(format: "%.3g", timeout)) s")))
        }
    }

    /// Runs one engine operation with the time limit, for async callers (the credential store).
    func perform<T: Sendable>(_ what: String, timeout: TimeInterval? = nil, _ operation: @escaping @Sendable (any FleetEngine) async throws -> T) async throws -> T {
        let engine = self.engine
        do {
            let value = try await withFleetTimeout(timeout ?? operationTimeout, what) { try await operation(engine) }
            noteEngine(.success(()), what: what)
            return value
        } catch {
            noteEngine(.failure(error), what: what)
            throw error
        }
    }

    // MARK: Engine health

    private func noteEngine(_ result: Result<Void, Error>, what: String) {
        let available: Bool
        switch result {
        case .success: available = true
        case .failure(let error):
            // A lock held by a sibling for its whole wait is the fleet working, not failing.
            if let error = error as? FleetError, error.kind == .busy {
                state.withLock { $0.operations += 1 }
                return
            }
            available = false
        }
        let (changed, listeners, share) = state.withLock { state -> (Bool, [Listener], Int) in
            state.operations += 1
            guard state.engineAvailable != available else { return (false, [], 0) }
            state.engineAvailable = available
            return (true, Array(state.listeners.values), max(1, state.members.count))
        }
        guard changed else { return }
        if case .failure(let error) = result {
            log?("fleet: \(engine.description) is away (\(what): \(error)); each replica runs on its own protection, 1/\(share) of a fleet quota")
        } else {
            log?("fleet: \(engine.description) is back; rejoined")
        }
        availabilitySubject.onNext(available)
        for listener in listeners { listener.onEngineChange(available) }
    }

    // MARK: Heartbeat

    private func startHeartbeat() {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: .milliseconds(Int(heartbeatInterval * 1_000)), leeway: .milliseconds(10))
        let member = self.member
        let timeout = heartbeatInterval * 3
        timer.setEventHandler { [weak self] in
            self?.run("a heartbeat", { engine in try await engine.heartbeat(member, timeout: timeout) }) { [weak self] result in
                guard case .success(let members) = result else { return }
                self?.membersSeen(members)
            }
        }
        state.withLock { $0.heartbeat = timer }
        timer.resume()
    }

    private func membersSeen(_ members: [FleetMember]) {
        let list = members.contains(member) ? members : [member] + members
        let previous = state.withLock { state -> [FleetMember]? in
            guard !state.left, state.members != list else { return nil }
            defer { state.members = list }
            return state.members
        }
        guard let previous else { return }
        // Logged before it is published: whoever sees the new list finds the line written.
        if let log {
            let before = Set(previous.map(\.id)), now = Set(list.map(\.id))
            let count = "\(list.count) member\(list.count == 1 ? "" : "s")"
            for joined in list where !before.contains(joined.id) { log("fleet: \(joined) joined (\(count))") }
            for gone in previous where !now.contains(gone.id) { log("fleet: \(gone) left (\(count))") }
        }
        membersSubject.onNext(list)
    }

    // MARK: Signals

    private func received(_ signal: FleetSignal) {
        remember(signal)
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.onSignal(signal) }
    }

    private func remember(_ signal: FleetSignal) {
        state.withLock { state in
            switch signal.kind {
            case .cooldown, .circuitOpen:
                if signal.until > (state.pauses[signal.origin]?.until ?? 0) { state.pauses[signal.origin] = signal }
            case .recovered:
                if state.pauses[signal.origin]?.kind == .circuitOpen { state.pauses[signal.origin] = nil }
            }
        }
    }
}
