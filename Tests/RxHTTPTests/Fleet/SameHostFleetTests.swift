import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// Two replicas in one process, each with its own `Fleet` on one directory (two members, as two
/// processes would be), against a real server: membership, one refresh per expiry, a refusal after
/// a sibling rotated, cooldowns and circuits that reach the sibling, the fleet's quota, and the
/// engine going away and coming back. The replicas in separate processes: `FleetProcessTests`.
final class SameHostFleetTests: LoopbackClientTestCase {
    private var directory: URL!
    private let tokens = OAuthRefreshTests.TokenServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-fleet-\(UUID().uuidString)")
        tokens.install(on: server)
        server.route(.get, "/ok", .json(#"{"id":1,"name":"ok"}"#))
    }

    override func tearDown() {
        super.tearDown()
        try? FileManager.default.removeItem(at: directory)
    }

    private func fleet(heartbeat: TimeInterval = 0.1, log: (@Sendable (String) -> Void)? = nil) throws -> Fleet {
        try Fleet.sameHost(directory: directory, heartbeatInterval: heartbeat, operationTimeout: 1, log: log)
    }

    private func client(_ fleet: Fleet, protection: HostProtection = HostProtection(), authenticator: OAuthAuthenticator? = nil) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, hostProtection: protection, fleet: fleet), authenticator: authenticator)
    }

    /// The store's synchronous calls, made from every thread of Swift's shared pool at once (as the
    /// authenticator makes them after a quota lease resumed a request there), still answer: the
    /// engine's operations run on the fleet's own threads. (They used to need a pool thread too,
    /// and a replica on a 2-core machine deadlocked.)
    func testTheStoresBlockingCallsAnswerFromEveryThreadOfTheSharedPool() throws {
        let fleet = try fleet()
        let store = fleet.credentialStore(named: "pool")
        try store.save(OAuthCredential(accessToken: "a", refreshToken: "r", expiresAt: Date().addingTimeInterval(60)))
        let callers = ProcessInfo.processInfo.activeProcessorCount * 2 + 2
        let answered = LockedBox(0)
        let done = DispatchGroup()
        for _ in 0..<callers {
            done.enter()
            Task {
                // Blocks this pool thread until the engine answers, as `load()` does.
                if (try? store.load())?.accessToken == "a" { answered.mutate { $0 += 1 } }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "every blocking call answered")
        XCTAssertEqual(answered.value, callers)
    }

    /// The same from every thread of Dispatch's global pool at once (a daemon's callers blocked on
    /// the store, as a synchronous `load()` blocks): the engine's threads are none of them.
    func testTheStoresBlockingCallsAnswerFromEveryThreadOfTheGlobalPool() throws {
        let fleet = try fleet()
        let store = fleet.credentialStore(named: "dispatch")
        try store.save(OAuthCredential(accessToken: "a", refreshToken: "r", expiresAt: Date().addingTimeInterval(60)))
        let callers = 4 * ProcessInfo.processInfo.activeProcessorCount + 8
        let answered = LockedBox(0)
        let done = DispatchGroup()
        let started = Date()
        for _ in 0..<callers {
            DispatchQueue.global().async(group: done) {
                if (try? store.load())?.accessToken == "a" { answered.mutate { $0 += 1 } }
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "every blocking call answered")
        XCTAssertEqual(answered.value, callers, "every call answered with the credential, none timed out")
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.9, "within the engine's time-out of 1 s")
    }

    // MARK: Membership

    func testMembersSeeEachOtherAndOneThatLeavesIsGone() async throws {
        let lines = LockedBox([String]())
        let first = try fleet { line in lines.mutate { $0.append(line) } }, second = try fleet()
        let seen = LockedBox([[FleetMember]]())
        let subscription = first.members.subscribe(onNext: { list in seen.mutate { $0.append(list) } })
        defer { subscription.dispose() }
        XCTAssertTrue(waitUntil(timeout: 3) { seen.value.last?.count == 2 }, "both members within a few heartbeats: \(seen.value)")
        XCTAssertEqual(Set(seen.value.last?.map(\.id) ?? []), [first.member.id, second.member.id])
        XCTAssertEqual(seen.value.last?.first?.processID, getpid())
        await second.leave()
        XCTAssertTrue(waitUntil(timeout: 3) { seen.value.last?.count == 1 }, "the member that left is gone")
        XCTAssertEqual(first.memberCount, 1)
        XCTAssertTrue(lines.value.contains { $0.contains("pid \(getpid())") && $0.contains("joined (2 members)") }, "\(lines.value)")
        XCTAssertTrue(lines.value.contains { $0.contains("left (1 member)") }, "\(lines.value)")
    }

    func testFilesAreTheDaemonsOwn() throws {
        let fleet = try fleet()
        try fleet.credentialStore(named: "api").save(OAuthCredential(accessToken: "a", refreshToken: "r"))
        var info = stat()
        XCTAssertEqual(stat(directory.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o700)
        let credentials = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/credentials")
        XCTAssertEqual(credentials.count, 1)
        XCTAssertEqual(stat(directory.path + "/credentials/" + credentials[0], &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        XCTAssertFalse(credentials[0].contains("/"))
        XCTAssertEqual(try fleet.credentialStore(named: "api").load()?.accessToken, "a")
        XCTAssertNil(try fleet.credentialStore(named: "../other").load(), "a name is never a path")
    }

    // MARK: Credentials

    func testOneRefreshPerExpiryAcrossMembers() throws {
        let first = try fleet(), second = try fleet()
        try first.credentialStore(named: "api").save(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(-1)))
        let clients = [first, second].map { fleet in
            client(fleet, authenticator: OAuthAuthenticator(
                store: fleet.credentialStore(named: "api"),
                refresher: .tokenEndpoint(server.url("/oauth/token"), clientID: "daemon", clientSecret: "s3cret")
            ))
        }
        let results = LockedBox([Result<User, HTTPClientError>]())
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 8
        let bag = DisposeBag()
        for index in 0..<8 {
            let single: Single<User> = clients[index % 2].rx.requestObject(path: "/api/items/\(index)")
            single.subscribe(
                onSuccess: { user in results.mutate { $0.append(.success(user)) }; done.fulfill() },
                onFailure: { error in results.mutate { $0.append(.failure(error as! HTTPClientError)) }; done.fulfill() }
            ).disposed(by: bag)
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(results.value.filter { (try? $0.get()) != nil }.count, 8, "\(results.value)")
        XCTAssertEqual(tokens.refreshCount, 1, "one refresh at the token endpoint for the whole fleet")
        XCTAssertEqual(try first.credentialStore(named: "api").load()?.refreshToken, "refresh-2")
    }

    func testARefusalAfterASiblingRotatedIsAnsweredByRereading() throws {
        let fleet = try fleet()
        let store = fleet.credentialStore(named: "api")
        try store.save(OAuthCredential(accessToken: "old", refreshToken: "old-refresh", expiresAt: Date().addingTimeInterval(-1)))
        let refreshes = LockedBox(0)
        let auth = OAuthAuthenticator(store: store, refresher: .custom { _ in
            refreshes.mutate { $0 += 1 }
            // A sibling that refreshed on its own (its engine away) stored a newer credential
            // while this refresh was on its way; then the server refuses our spent token.
            try? store.save(OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(3_600)))
            return .error(HTTPClientError(.unacceptableStatusCode, statusCode: 400, body: Data(#"{"error":"invalid_grant"}"#.utf8)))
        })
        let lost = LockedBox(0)
        let watch = auth.didLoseAuthentication.subscribe(onNext: { _ in lost.mutate { $0 += 1 } })
        defer { watch.dispose() }
        let user: Result<User, HTTPClientError>? = result(of: client(fleet, authenticator: auth).rx.requestObject(path: "/api/me"))
        XCTAssertEqual(try user?.get().name, "ok")
        XCTAssertEqual(refreshes.value, 1)
        XCTAssertEqual(lost.value, 0, "not signed out")
        XCTAssertEqual(try store.load()?.accessToken, "access-1", "the store was not cleared")
    }

    func testARefusalOfTheStoredTokenClearsTheFleetsStore() throws {
        let fleet = try fleet()
        let store = fleet.credentialStore(named: "api")
        try store.save(OAuthCredential(accessToken: "old", refreshToken: "spent", expiresAt: Date().addingTimeInterval(-1)))
        let auth = OAuthAuthenticator(
            store: store, refresher: .tokenEndpoint(server.url("/oauth/token"), clientID: "daemon", clientSecret: "s3cret")
        )
        let lost = LockedBox(0)
        let watch = auth.didLoseAuthentication.subscribe(onNext: { _ in lost.mutate { $0 += 1 } })
        defer { watch.dispose() }
        let user: Result<User, HTTPClientError>? = result(of: client(fleet, authenticator: auth).rx.requestObject(path: "/api/me"))
        XCTAssertEqual(failure(user)?.code, .refreshFailed)
        XCTAssertNil(try store.load(), "refused: cleared for the whole fleet")
        XCTAssertEqual(lost.value, 1)
    }

    // MARK: Cooldowns and circuits

    func testASiblingsCooldownHoldsTheHostWithin100Milliseconds() throws {
        let first = try fleet(), second = try fleet()
        server.route(.get, "/limited", LoopbackHTTPResponse(status: 429, headers: ["Retry-After": "1"], body: Data()))
        let seeing = client(first), sibling = client(second)
        let warmed: Result<User, HTTPClientError>? = result(of: sibling.rx.requestObject(path: "/ok"))
        XCTAssertNotNil(try warmed?.get())
        guard let gate = sibling.hosts.gate(for: server.baseURL) else { return XCTFail("no gate") }
        let limited: Result<User, HTTPClientError>? = result(of: seeing.rx.requestObject(path: "/limited"))
        XCTAssertEqual(failure(limited)?.statusCode, 429)
        let seen = Date()
        XCTAssertTrue(waitUntil(timeout: 1) { gate.admitAtOnce(bypassesQueue: false, isFirstAttempt: false, now: Date()) == nil })
        let latency = Date().timeIntervalSince(seen)
        print("a sibling's cooldown held this replica after \(Int(latency * 1_000)) ms")
        XCTAssertLessThan(latency, 0.2, "within the fleet's 100 ms (a 50 ms watch), with room for a loaded machine")
        let held = LockedBox([HTTPClientEvent.HoldReason]())
        let events = sibling.events.subscribe(onNext: { event in
            if case .held(let reason) = event.kind { held.mutate { $0.append(reason) } }
        })
        defer { events.dispose() }
        let answered: Result<User, HTTPClientError>? = result(of: sibling.rx.requestObject(path: "/ok"))
        XCTAssertNotNil(try answered?.get(), "sent once the cooldown ended")
        XCTAssertEqual(held.value, [.cooldown])
        XCTAssertGreaterThan(Date().timeIntervalSince(seen), 0.5)
    }

    func testAnOpenCircuitReachesTheSiblingAndSoDoesItsRecovery() throws {
        let first = try fleet(), second = try fleet()
        server.route(.get, "/flaky", .status(500))
        let protection = HostProtection(circuitBreaker: CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 2, window: 10, breakDuration: 10))
        let seeing = client(first, protection: protection), sibling = client(second, protection: protection)
        let changes = LockedBox([CircuitState]())
        let events = sibling.events.subscribe(onNext: { event in
            if case .circuitChanged(let state) = event.kind { changes.mutate { $0.append(state) } }
        })
        defer { events.dispose() }
        let warmed: Result<User, HTTPClientError>? = result(of: sibling.rx.requestObject(path: "/ok"))
        XCTAssertNotNil(try warmed?.get())
        for _ in 0..<2 {
            let failed: Result<User, HTTPClientError>? = result(of: seeing.rx.requestObject(path: "/flaky"))
            XCTAssertEqual(failure(failed)?.statusCode, 500)
        }
        XCTAssertTrue(waitUntil(timeout: 1) { self.isOpen(sibling) }, "the sibling's circuit opens too: \(changes.value)")
        let refused: Result<User, HTTPClientError>? = result(of: sibling.rx.requestObject(path: "/ok"))
        XCTAssertEqual(failure(refused)?.code, .circuitOpen, "the sibling fails fast too")
        // What the first replica says when its reachability sees the host back, or a trial succeeds.
        first.publish(.recovered, origin: Origin(server.baseURL).description, until: nil, statusCode: nil)
        // The event follows the state change on the thread that made it: wait for the event.
        XCTAssertTrue(waitUntil(timeout: 1) { changes.value.last == .halfOpen }, "the recovery half-opens the sibling's circuit: \(changes.value)")
        let trial: Result<User, HTTPClientError>? = result(of: sibling.rx.requestObject(path: "/ok"))
        XCTAssertNotNil(try trial?.get(), "its trial goes through and closes it")
        XCTAssertTrue(waitUntil(timeout: 1) { changes.value.last == .closed }, "\(changes.value)")
    }

    private func isOpen(_ client: HTTPClient) -> Bool {
        if case .open = client.hosts.gate(for: server.baseURL)?.circuitState(now: Date()) { return true }
        return false
    }

    // MARK: Quota

    func testTheFleetsQuotaHoldsAcrossMembers() throws {
        let first = try fleet(), second = try fleet()
        let protection = HostProtection(rateLimit: RateLimit(requests: 60, per: 1, burst: 4, scope: .fleet))
        let clients = [client(first, protection: protection), client(second, protection: protection)]
        let arrivals = LockedBox([Date]())
        server.route(.get, "/counted") { _ in
            arrivals.mutate { $0.append(Date()) }
            return .json(#"{"id":1,"name":"ok"}"#)
        }
        let done = expectation(description: "all")
        done.expectedFulfillmentCount = 30
        let failures = LockedBox(0)
        let bag = DisposeBag()
        let start = Date()
        for index in 0..<30 {
            let single: Single<User> = clients[index % 2].rx.requestObject(path: "/counted")
            single.subscribe(onSuccess: { _ in done.fulfill() }, onFailure: { _ in failures.mutate { $0 += 1 }; done.fulfill() }).disposed(by: bag)
        }
        wait(for: [done], timeout: 10)
        XCTAssertEqual(failures.value, 0)
        let times = arrivals.value.map { $0.timeIntervalSince(start) }.sorted()
        XCTAssertEqual(times.count, 30)
        for (index, time) in times.enumerated() {
            // Within the limit plus its burst from the start: 4 + 60 × t (+1 for the clock's rounding).
            XCTAssertLessThanOrEqual(Double(index + 1), 4 + 60 * time + 1, "send \(index + 1) at \(time) s")
        }
        print("30 sends by two members at 60/s, burst 4, in \(String(format: "%.3f", times.last ?? 0)) s")
    }

    // MARK: Engine away

    func testTheEngineAwayFallsBackAndRejoins() throws {
        let lines = LockedBox([String]())
        let fleet = try fleet { line in lines.mutate { $0.append(line) } }
        let client = client(fleet, protection: HostProtection(rateLimit: RateLimit(requests: 200, per: 1, burst: 10, scope: .fleet)))
        let changes = LockedBox([Bool]())
        let events = client.events.subscribe(onNext: { event in
            if case .fleetEngineChanged(let available) = event.kind { changes.mutate { $0.append(available) } }
        })
        defer { events.dispose() }
        let aside = directory.deletingLastPathComponent().appendingPathComponent(directory.lastPathComponent + "-aside")
        try FileManager.default.moveItem(at: directory, to: aside)
        XCTAssertTrue(FileManager.default.createFile(atPath: directory.path, contents: Data("not a directory".utf8)))
        XCTAssertTrue(waitUntil(timeout: 3) { changes.value == [false] }, "\(changes.value)")
        XCTAssertFalse(fleet.isEngineAvailable)
        for _ in 0..<5 {
            let answered: Result<User, HTTPClientError>? = result(of: client.rx.requestObject(path: "/ok"))
            XCTAssertNotNil(try answered?.get(), "requests go on, on local protection")
        }
        try FileManager.default.removeItem(at: directory)
        try FileManager.default.moveItem(at: aside, to: directory)
        XCTAssertTrue(waitUntil(timeout: 3) { changes.value == [false, true] }, "\(changes.value)")
        let answered: Result<User, HTTPClientError>? = result(of: client.rx.requestObject(path: "/ok"))
        XCTAssertNotNil(try answered?.get())
        let logged = lines.value
        XCTAssertTrue(logged.contains { $0.contains("is away") && $0.contains("own protection") }, "\(logged)")
        XCTAssertTrue(logged.contains { $0.contains("is back") }, "\(logged)")
    }
}
