// Runs with the package trait `PostgreSQL` only (`swift test --traits PostgreSQL`), against the real
// server named by RXNK_POSTGRES_URL (`url="$(Scripts/postgres.sh start DIR)"` starts one).
#if PostgreSQL
import Foundation
import PostgresNIO
@_spi(RxNetworkKitInternals) import RxCore
@testable import RxHTTP
import XCTest

/// The PostgreSQL fleet engine against a real database: two replicas (two clients, two engines) in
/// one fresh namespace per test.
final class PostgreSQLFleetTests: XCTestCase {
    private var clients: [PostgresClient] = []
    private var running: [Task<Void, Never>] = []
    private var engines: [PostgreSQLFleetEngine] = []
    private var namespace = ""

    override func setUp() async throws {
        try await super.setUp()
        namespace = "test-" + UUID().uuidString.lowercased()
        let configuration = try Self.configuration()
        for _ in 0..<2 {
            let client = PostgresClient(configuration: configuration)
            clients.append(client)
            running.append(Task { await client.run() })
        }
    }

    override func tearDown() async throws {
        for engine in engines { engine.close() }
        if let client = clients.first {
            // Best effort: the rows of this test's namespace go.
            for table in ["credentials", "buckets", "bucket_accounts", "members"] {
                try? await execute(on: client, PostgresQuery(
                    unsafeSQL: "DELETE FROM rxnetworkkit_fleet_\(table) WHERE namespace = $1", binds: Self.binds(namespace)
                ))
            }
        }
        for task in running { task.cancel() }
        for task in running { await task.value }
        engines = []
        clients = []
        running = []
        try await super.tearDown()
    }

    // MARK: Locks

    func testALockExcludesASiblingWhileItsBodyRunsAndIsFreeAfter() async throws {
        let (first, second) = makeEngines()
        let held = LockedState<Bool>.make(false)
        let release = LockedState<Bool>.make(false)
        let holder = Task {
            try await first.withLock("refresh", wait: 1) {
                held.withLock { $0 = true }
                while !release.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
                return 1
            }
        }
        try await waitUntil("the first replica holds the lock") { held.withLock { $0 } }

        let start = Date()
        do {
            _ = try await second.withLock("refresh", wait: 0.2) { 2 }
            XCTFail("the sibling took a lock that was held")
        } catch let error as FleetError {
            XCTAssertEqual(error.kind, .busy, "\(error)")
        }
        let waited = Date().timeIntervalSince(start)
        XCTAssertGreaterThanOrEqual(waited, 0.19)
        XCTAssertLessThan(waited, 1)
        // Another name is another lock.
        let other = try await second.withLock("another", wait: 0.2) { 3 }
        XCTAssertEqual(other, 3)

        // A waiter whose caller gives up stops waiting at once.
        let waiter = Task { try await second.withLock("refresh", wait: 5) { 7 } }
        try await Task.sleep(for: .milliseconds(50))
        let cancelled = Date()
        waiter.cancel()
        do {
            _ = try await waiter.value
            XCTFail("a cancelled waiter took the lock")
        } catch is CancellationError {}
        XCTAssertLessThan(Date().timeIntervalSince(cancelled), 0.2)

        release.withLock { $0 = true }
        let firstValue = try await holder.value
        XCTAssertEqual(firstValue, 1)
        let secondValue = try await second.withLock("refresh", wait: 0.2) { 2 }
        XCTAssertEqual(secondValue, 2)
        // And back: the second replica released it after its body.
        let again = try await first.withLock("refresh", wait: 0.2) { 4 }
        XCTAssertEqual(again, 4)
    }

    func testALockIsReleasedWhenItsBodyThrowsAndTheErrorIsTheBodys() async throws {
        let (first, second) = makeEngines()
        struct Refused: Error {}
        do {
            _ = try await first.withLock("refresh", wait: 0.2) { () async throws -> Int in throw Refused() }
            XCTFail("the body's error was lost")
        } catch is Refused {}
        let value = try await second.withLock("refresh", wait: 0.2) { 5 }
        XCTAssertEqual(value, 5)
    }

    func testALockDiesWithTheSessionOfItsHolder() async throws {
        let (first, second) = makeEngines()
        let held = LockedState<Bool>.make(false)
        let holder = Task {
            try await first.withLock("refresh", wait: 1) {
                held.withLock { $0 = true }
                try await Task.sleep(for: .seconds(10))
            }
        }
        defer { holder.cancel() }
        try await waitUntil("the first replica holds the lock") { held.withLock { $0 } }
        // The holder's process dies: the server ends its session.
        let key = namespace + ":refresh"
        let terminated = try await clients[1].query(
            """
            SELECT count(pg_terminate_backend(pid))::int8 FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND objsubid = 1
            AND ((classid::int8 << 32) | objid::int8) = hashtextextended(\(key), 0)
            """
        )
        var count = 0
        for try await value in terminated.decode(Int.self) { count = value }
        XCTAssertEqual(count, 1)
        let value = try await second.withLock("refresh", wait: 1) { 6 }
        XCTAssertEqual(value, 6)
    }

    // MARK: Schema

    func testReplicasStartingTogetherCreateTheTablesOnce() async throws {
        // An empty schema of this test's own, first on the search path of four fresh clients.
        let schema = "rxnk_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await execute(on: clients[0], PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"))
        var configuration = try Self.configuration()
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        let fresh = (0..<4).map { _ in PostgresClient(configuration: configuration) }
        let runs = fresh.map { client in Task { await client.run() } }
        let replicas = fresh.map { PostgreSQLFleetEngine(client: $0, namespace: namespace, heartbeatInterval: 1, operationTimeout: 2) }
        let members = replicas.map { _ in member("r") }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (replica, member) in zip(replicas, members) {
                group.addTask { _ = try await replica.heartbeat(member, timeout: 5) }
            }
            try await group.waitForAll()
        }
        let seen = try await replicas[0].heartbeat(members[0], timeout: 5)
        XCTAssertEqual(Set(seen.map(\.id)), Set(members.map(\.id)))
        let tables = try await clients[0].query(
            "SELECT count(*)::int8 FROM pg_tables WHERE schemaname = \(schema) AND tablename LIKE 'rxnetworkkit_fleet_%'"
        )
        var count = 0
        for try await value in tables.decode(Int.self) { count = value }
        XCTAssertEqual(count, 5)
        for replica in replicas { replica.close() }
        for run in runs { run.cancel() }
        for run in runs { await run.value }
        try await execute(on: clients[0], PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
    }

    // MARK: Credentials

    func testACredentialWrittenByOneReplicaIsReadByTheOther() async throws {
        let (first, second) = makeEngines()
        let missing = try await second.readCredential(named: "billing")
        XCTAssertNil(missing)
        let body = Data(#"{"accessToken":"a","refreshToken":"r"}"#.utf8) + Data([0, 255, 10])
        try await first.writeCredential(named: "billing", body)
        let read = try await second.readCredential(named: "billing")
        XCTAssertEqual(read, body)
        try await second.writeCredential(named: "billing", Data("newer".utf8))
        let newer = try await first.readCredential(named: "billing")
        XCTAssertEqual(newer, Data("newer".utf8))
        // Names are any string, bound as parameters.
        try await first.writeCredential(named: "it's; DROP TABLE x; --", Data("odd".utf8))
        let odd = try await second.readCredential(named: "it's; DROP TABLE x; --")
        XCTAssertEqual(odd, Data("odd".utf8))
        try await second.writeCredential(named: "billing", nil)
        let removed = try await first.readCredential(named: "billing")
        XCTAssertNil(removed)
        let other = try await first.readCredential(named: "it's; DROP TABLE x; --")
        XCTAssertEqual(other, Data("odd".utf8))
    }

    func testNamespacesAreApart() async throws {
        let (first, _) = makeEngines()
        let elsewhere = PostgreSQLFleetEngine(
            client: clients[1], namespace: namespace + "-other", heartbeatInterval: 1, operationTimeout: 2
        )
        engines.append(elsewhere)
        try await first.writeCredential(named: "billing", Data("here".utf8))
        let there = try await elsewhere.readCredential(named: "billing")
        XCTAssertNil(there)
        XCTAssertNotEqual(first.channel, elsewhere.channel)
        XCTAssertTrue(first.channel.hasPrefix("rxnk_"))
        XCTAssertEqual(first.channel.count, 21)
    }

    // MARK: Quota

    func testTheCapacityHoldsAcrossTwoMembersAndSettlingGivesTokensBack() async throws {
        let (first, second) = makeEngines()
        let (a, b) = (member("a"), member("b"))
        _ = try await first.heartbeat(a, timeout: 5)
        _ = try await second.heartbeat(b, timeout: 5)
        // A slow refill: the capacity is what there is.
        func request(_ who: FleetMember, holding: Int = 0, returned: Int = 0, want: Int) -> QuotaLeaseRequest {
            QuotaLeaseRequest(bucket: "https://api.example.com:443|10/1000/10", rate: 0.01, capacity: 10, member: who.id,
                              holding: holding, returned: returned, want: want)
        }
        let firstGrant = try await first.lease(request(a, want: 6))
        XCTAssertEqual(firstGrant, QuotaGrant(granted: 6, nextTokenIn: nil))
        let secondGrant = try await second.lease(request(b, want: 6))
        XCTAssertEqual(secondGrant.granted, 4, "the capacity is shared")
        XCTAssertNotNil(secondGrant.nextTokenIn)
        let nothing = try await second.lease(request(b, holding: 4, want: 1))
        XCTAssertEqual(nothing.granted, 0)
        if let wait = nothing.nextTokenIn { XCTAssertEqual(wait, 0.05, accuracy: 0.001, "the leases fill the capacity: a short look again") }
        // The first gives its six back unspent: they are the second's to take.
        let givenBack = try await first.lease(request(a, holding: 0, returned: 6, want: 0))
        XCTAssertEqual(givenBack, QuotaGrant(granted: 0, nextTokenIn: nil))
        let more = try await second.lease(request(b, holding: 4, want: 6))
        XCTAssertEqual(more.granted, 6)
        // Spent, not returned: the account empties but the bucket does not refill beyond the rate.
        let spent = try await second.lease(request(b, holding: 0, returned: 0, want: 3))
        XCTAssertEqual(spent.granted, 0)
        let accounts = try await accountsOf("https://api.example.com:443|10/1000/10")
        XCTAssertEqual(accounts, [:], "nobody holds anything")
    }

    func testTheSameArithmeticAsTheSameHostEngine() async throws {
        let (first, _) = makeEngines()
        let a = member("a")
        _ = try await first.heartbeat(a, timeout: 5)
        var tokens = 3.0
        var at = 0.0
        var accounts: [String: Int] = [:]
        let steps = [(0, 0, 2), (2, 0, 5), (1, 0, 1), (0, 3, 4)]
        // A bucket with no refill to speak of gives the same grants in Swift and through the database.
        for (holding, returned, want) in steps {
            let request = QuotaLeaseRequest(bucket: "arithmetic", rate: 1e-9, capacity: 3, member: a.id,
                                            holding: holding, returned: returned, want: want)
            let expected = QuotaArithmetic.settle(tokens: &tokens, at: &at, accounts: &accounts, request: request, now: at)
            let granted = try await first.lease(request)
            XCTAssertEqual(granted.granted, expected.granted, "step \(holding)/\(returned)/\(want)")
            XCTAssertEqual(granted.nextTokenIn == nil, expected.nextTokenIn == nil)
        }
    }

    func testAMemberMissingItsHeartbeatsHasItsLeaseDropped() async throws {
        let (first, second) = makeEngines()
        let (a, b) = (member("a"), member("b"))
        // A time-out with room for a slow machine (ThreadSanitizer, a busy CI host) between the
        // checks that the member is alive and the wait that outlives it.
        let timeout = 1.0
        _ = try await first.heartbeat(a, timeout: timeout)
        _ = try await second.heartbeat(b, timeout: timeout)
        // A fast refill: only the leases out limit what there is.
        func request(_ who: FleetMember, want: Int) -> QuotaLeaseRequest {
            QuotaLeaseRequest(bucket: "fast", rate: 1_000, capacity: 10, member: who.id, holding: 0, returned: 0, want: want)
        }
        let all = try await first.lease(request(a, want: 10))
        XCTAssertEqual(all.granted, 10)
        let none = try await second.lease(request(b, want: 5))
        XCTAssertEqual(none.granted, 0, "the first's lease fills the capacity")
        // The first stops heartbeating; the second goes on.
        try await Task.sleep(for: .milliseconds(100))
        _ = try await second.heartbeat(b, timeout: timeout)
        let stillNone = try await second.lease(request(b, want: 5))
        XCTAssertEqual(stillNone.granted, 0, "not dead yet")
        try await Task.sleep(for: .milliseconds(1_000))
        let members = try await second.heartbeat(b, timeout: timeout)
        XCTAssertEqual(members.map(\.id), [b.id], "the silent member is gone")
        let back = try await second.lease(request(b, want: 5))
        XCTAssertEqual(back.granted, 5, "its lease returned")
    }

    func testTheLeaseItselfDropsTheAccountsOfTheDead() async throws {
        let (first, second) = makeEngines()
        let (a, b) = (member("a"), member("b"))
        _ = try await first.heartbeat(a, timeout: 0.2)
        func request(_ who: FleetMember, want: Int) -> QuotaLeaseRequest {
            QuotaLeaseRequest(bucket: "fast", rate: 1_000, capacity: 10, member: who.id, holding: 0, returned: 0, want: want)
        }
        let all = try await first.lease(request(a, want: 10))
        XCTAssertEqual(all.granted, 10)
        try await Task.sleep(for: .milliseconds(300))
        // The second has not heartbeaten yet: its engine's member time-out is three heartbeat
        // intervals (0.15 s), and nobody removed the first's row.
        let back = try await second.lease(request(b, want: 4))
        XCTAssertEqual(back.granted, 4, "the first's lease was dropped")
    }

    // MARK: Signals

    func testASignalReachesTheSiblingQuicklyAndNotItsSender() async throws {
        let (first, second) = makeEngines()
        let (a, b) = (member("a"), member("b"))
        let atFirst = LockedState<[FleetSignal]>.make([])
        let atSecond = LockedState<[(FleetSignal, Date)]>.make([])
        first.watchSignals(as: a) { signal in atFirst.withLock { $0.append(signal) } }
        second.watchSignals(as: b) { signal in atSecond.withLock { $0.append((signal, Date())) } }
        try await waitUntil("both replicas listen") { first.isListening && second.isListening }

        var latencies: [TimeInterval] = []
        for index in 0..<5 {
            let signal = FleetSignal(origin: "https://api.example.com:443", kind: .cooldown, until: 1_000 + Double(index),
                                     statusCode: 429, from: a.id)
            let start = Date()
            try await first.publish(signal)
            try await waitUntil("signal \(index) arrives") { atSecond.withLock { $0.count } > index }
            let (received, at) = atSecond.withLock { $0[index] }
            XCTAssertEqual(received, signal)
            latencies.append(at.timeIntervalSince(start))
        }
        let sorted = latencies.sorted()
        print("PostgreSQL fleet signal latency, 5 signals: median \(Self.ms(sorted[2])), max \(Self.ms(sorted[4]))")
        XCTAssertLessThan(sorted[4], 0.5)
        // Foreign payloads on the channel are skipped; the sender never hears itself.
        try await execute(on: clients[1], "SELECT pg_notify(\(first.channel), 'not a signal')")
        let recovered = FleetSignal(origin: "https://api.example.com:443", kind: .recovered, until: 0, statusCode: nil, from: b.id)
        try await second.publish(recovered)
        try await waitUntil("the recovery arrives") { atFirst.withLock { $0 } == [recovered] }
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertEqual(atSecond.withLock { $0.count }, 5)
        XCTAssertEqual(atFirst.withLock { $0 }, [recovered])
    }

    /// A replica that starts listening while a sibling's pause lasts honours it (the same-host
    /// engine reads its signal files the same way); an open circuit that recovered and a pause
    /// that ended are not told.
    func testAReplicaThatStartsDuringASiblingsPauseIsToldOfIt() async throws {
        let (first, second) = makeEngines()
        let (a, b) = (member("a"), member("b"))
        let now = Date().timeIntervalSince1970
        let cooldown = FleetSignal(origin: "https://a.example:443", kind: .cooldown, until: now + 60, statusCode: 429, from: a.id)
        let shorter = FleetSignal(origin: "https://a.example:443", kind: .cooldown, until: now + 30, statusCode: 503, from: a.id)
        let circuit = FleetSignal(origin: "https://b.example:443", kind: .circuitOpen, until: now + 60, statusCode: nil, from: a.id)
        let recovered = FleetSignal(origin: "https://b.example:443", kind: .recovered, until: 0, statusCode: nil, from: a.id)
        let ended = FleetSignal(origin: "https://c.example:443", kind: .cooldown, until: now - 1, statusCode: 429, from: a.id)
        for signal in [cooldown, shorter, circuit, recovered, ended] { try await first.publish(signal) }

        let atSecond = LockedState<[FleetSignal]>.make([])
        second.watchSignals(as: b) { signal in atSecond.withLock { $0.append(signal) } }
        try await waitUntil("the second listens") { second.isListening }
        try await waitUntil("the lasting pause is told") { !atSecond.withLock { $0 }.isEmpty }
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertEqual(atSecond.withLock { $0 }, [cooldown], "the longer cooldown only: the circuit recovered, the other pause ended")
        // Its own pauses are not told back to a replica that listens again.
        let own = LockedState<[FleetSignal]>.make([])
        first.watchSignals(as: a) { signal in own.withLock { $0.append(signal) } }
        try await waitUntil("the first listens") { first.isListening }
        try await Task.sleep(for: .milliseconds(50))
        XCTAssertEqual(own.withLock { $0 }, [])
    }

    func testTheListenerListensAgainAfterItsConnectionDies() async throws {
        let (first, second) = makeEngines()
        let (a, b) = (member("a"), member("b"))
        let atSecond = LockedState<[FleetSignal]>.make([])
        second.watchSignals(as: b) { signal in atSecond.withLock { $0.append(signal) } }
        try await waitUntil("the second listens") { second.isListening }
        // The listening session ends (a database restart, as far as one session knows).
        try await execute(
            on: clients[0],
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE \("%" + second.channel + "%")"
        )
        try await waitUntil("the second sees its listen fail") { !second.isListening }
        try await waitUntil("the second listens again", within: 3) { second.isListening }
        let signal = FleetSignal(origin: "https://b.example:443", kind: .circuitOpen, until: 5, statusCode: nil, from: a.id)
        try await first.publish(signal)
        try await waitUntil("the signal arrives") { atSecond.withLock { $0 } == [signal] }
    }

    // MARK: Members

    func testTheHeartbeatListsTheLivingMembersOldestFirstAndLeaveRemovesOne() async throws {
        let (first, second) = makeEngines()
        let a = FleetMember(id: "member-a", hostName: "host-1", processID: 11, since: Date(timeIntervalSince1970: 1_000.123_456_789))
        let b = FleetMember(id: "member-b", hostName: "host-2", processID: 22, since: Date(timeIntervalSince1970: 900))
        let alone = try await first.heartbeat(a, timeout: 5)
        XCTAssertEqual(alone, [a], "itself, exactly")
        let both = try await second.heartbeat(b, timeout: 5)
        XCTAssertEqual(both.map(\.id), [b.id, a.id], "oldest first")
        XCTAssertEqual(both.last?.hostName, "host-1")
        XCTAssertEqual(both.last?.processID, 11)
        XCTAssertEqual(both.last?.since.timeIntervalSince1970 ?? 0, 1_000.123_457, accuracy: 1e-6)
        XCTAssertEqual(both.first, b)
        await first.leave(a)
        let left = try await second.heartbeat(b, timeout: 5)
        XCTAssertEqual(left, [b])
    }

    // MARK: Fleet

    func testTwoFleetsOnPostgreSQLSeeEachOther() async throws {
        let lines = LockedState<[String]>.make([])
        let first = try Fleet.postgreSQL(
            clients[0], namespace: namespace, heartbeatInterval: 0.1, operationTimeout: 1, log: { line in lines.withLock { $0.append(line) } }
        )
        let second = try Fleet.postgreSQL(clients[1], namespace: namespace, heartbeatInterval: 0.1, operationTimeout: 1)
        try await waitUntil("both see two members") { first.memberCount == 2 && second.memberCount == 2 }
        // The line is written as the list is published (`members`), which `memberCount` may read
        // a moment before.
        try await waitUntil("the first logs the join") {
            lines.withLock { $0 }.contains { $0.contains(second.member.id.prefix(8)) && $0.contains("joined (2 members)") }
        }
        XCTAssertTrue(first.isEngineAvailable)
        XCTAssertEqual(first.engine.description, "PostgreSQL fleet in namespace \(namespace)")
        await first.leave()
        try await waitUntil("the second sees the first gone") { second.memberCount == 1 }
        await second.leave()
    }

    func testANamespaceIsValidated() {
        let client = clients[0]
        XCTAssertThrowsError(try Fleet.postgreSQL(client, namespace: "")) { error in
            XCTAssertEqual((error as? FleetError)?.kind, .invalidArgument)
        }
        XCTAssertThrowsError(try Fleet.postgreSQL(client, namespace: String(repeating: "n", count: 64)))
        XCTAssertThrowsError(try Fleet.postgreSQL(client, namespace: "a\0b"))
    }

    func testAClientThatDoesNotRunFailsWithinTheOperationTimeout() async throws {
        let idle = PostgresClient(configuration: try Self.configuration())
        let engine = PostgreSQLFleetEngine(client: idle, namespace: namespace, heartbeatInterval: 1, operationTimeout: 0.2)
        let start = Date()
        do {
            _ = try await engine.heartbeat(member("a"), timeout: 3)
            XCTFail("a client that is not running answered")
        } catch let error as FleetError {
            XCTAssertEqual(error.kind, .timedOut, "\(error)")
            XCTAssertTrue(error.message.contains("run()"), error.message)
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 1)
        engine.close()
    }

    func testAStatementThatOverrunsFailsAsTimedOutAndNeverLeaksTheCredential() async throws {
        let (first, second) = makeEngines(operationTimeout: 0.3)
        try await first.writeCredential(named: "billing", Data("one".utf8))
        // A sibling's transaction holds the credential's row: the writer's statement waits past its
        // time-out.
        let blocker = Task { [clients, namespace] in
            try await clients[1].withTransaction(logger: Logger(label: "test")) { connection in
                try await connection.query(
                    "SELECT 1 FROM rxnetworkkit_fleet_credentials WHERE namespace = \(namespace) AND name = 'billing' FOR UPDATE",
                    logger: Logger(label: "test")
                )
                try await Task.sleep(for: .milliseconds(800))
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        let secret = "s3cr3t-refresh-token"
        do {
            try await second.writeCredential(named: "billing", Data(secret.utf8))
            XCTFail("the write went through a locked row")
        } catch let error as FleetError {
            XCTAssertEqual(error.kind, .timedOut, "\(error)")
            XCTAssertFalse("\(error)".contains(secret))
            print("An overrunning write: \(error)")
        }
        try await blocker.value
        let stored = try await first.readCredential(named: "billing")
        XCTAssertEqual(stored, Data("one".utf8))
    }

    // MARK: Helpers

    private func makeEngines(operationTimeout: TimeInterval = 2) -> (PostgreSQLFleetEngine, PostgreSQLFleetEngine) {
        let made = clients.map {
            PostgreSQLFleetEngine(client: $0, namespace: namespace, heartbeatInterval: 0.05, operationTimeout: operationTimeout)
        }
        engines += made
        return (made[0], made[1])
    }

    /// Runs a statement and reads its rows to the end (which gives the connection back).
    private func execute(on client: PostgresClient, _ query: PostgresQuery) async throws {
        for try await _ in try await client.query(query) {}
    }

    private func member(_ name: String) -> FleetMember {
        FleetMember(id: name + "-" + UUID().uuidString.lowercased(), hostName: "test", processID: 1, since: Date())
    }

    private func accountsOf(_ bucket: String) async throws -> [String: Int] {
        let rows = try await clients[0].query(
            "SELECT member, leased FROM rxnetworkkit_fleet_bucket_accounts WHERE namespace = \(namespace) AND key = \(bucket)"
        )
        var accounts: [String: Int] = [:]
        for try await (member, leased) in rows.decode((String, Int32).self) { accounts[member] = Int(leased) }
        return accounts
    }

    private func waitUntil(_ what: String, within seconds: TimeInterval = 1, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else {
                XCTFail("\(what): not within \(seconds) s")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    private static func ms(_ seconds: TimeInterval) -> String {
        String(format: "%.2f ms", seconds * 1_000)
    }

    private static func binds(_ value: String) -> PostgresBindings {
        var binds = PostgresBindings()
        binds.append(value)
        return binds
    }

    private struct NoServer: Error, CustomStringConvertible {
        let description: String
    }

    /// The server of RXNK_POSTGRES_URL (postgres://USER[:PASSWORD]@HOST:PORT/DATABASE), without TLS.
    private static func configuration() throws -> PostgresClient.Configuration {
        guard let url = ProcessInfo.processInfo.environment["RXNK_POSTGRES_URL"], !url.isEmpty else {
            let message = """
                The trait PostgreSQL is on but RXNK_POSTGRES_URL is not set: these tests need a real PostgreSQL server. \
                Start one with `url="$(Scripts/postgres.sh start /tmp/rxnk-pg)"` and run \
                `RXNK_POSTGRES_URL="$url" swift test --traits PostgreSQL`.
                """
            XCTFail(message)
            throw NoServer(description: message)
        }
        guard let address = PostgresURL(url) else {
            let message = "RXNK_POSTGRES_URL is not a postgres://USER@HOST:PORT/DATABASE URL: \(url)"
            XCTFail(message)
            throw NoServer(description: message)
        }
        return address.configuration
    }
}
#endif
