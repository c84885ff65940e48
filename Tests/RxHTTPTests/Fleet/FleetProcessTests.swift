import Foundation
#if PostgreSQL
import PostgresNIO
#endif
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// Replicas as separate processes (this test binary started again in a replica mode, as
/// `DiskCacheTests` does) on one fleet directory — and, with the trait `PostgreSQL`, on one
/// database: a lock holder killed with SIGKILL releases the fleet, and dies out of `members`; three
/// replicas of four callers each against one rotating token endpoint refresh once per expiry, with
/// no `invalid_grant` and no error to any caller.
final class FleetProcessTests: LoopbackClientTestCase {
    private var directory: URL!
    private let tokens = OAuthRefreshTests.TokenServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-fleet-\(UUID().uuidString)")
        tokens.install(on: server)
    }

    override func tearDown() {
        super.tearDown()
        try? FileManager.default.removeItem(at: directory)
    }

    private func replica(_ mode: String, _ environment: [String: String] = [:]) throws -> Process {
        guard let executable = CommandLine.arguments.first, executable.hasSuffix(".xctest") || executable.contains("PackageTests") else {
            throw XCTSkip("the test binary's path is not known")
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = ["RxHTTPTests.FleetProcessTests/testReplicaProcess"]
        child.environment = ProcessInfo.processInfo.environment.merging(
            ["RXNK_FLEET_REPLICA": mode, "RXNK_FLEET_DIR": directory.path].merging(environment) { $1 }
        ) { $1 }
        // What it says goes to a file of the test's directory, read when it fails.
        let log = directory.appendingPathComponent("replica-\(UUID().uuidString).log")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        child.standardOutput = output
        child.standardError = output
        try child.run()
        return child
    }

    func testAKilledLockHolderReleasesTheFleetAndLeavesIt() async throws {
        let fleet = try Fleet.sameHost(directory: directory, heartbeatInterval: 0.1)
        let holder = try replica("lock")
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let marker = directory.appendingPathComponent("locked-\(holder.processIdentifier)").path
        XCTAssertTrue(waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: marker) }, "the replica took the lock")
        XCTAssertTrue(waitUntil(timeout: 2) { fleet.memberCount == 2 }, "the replica is a member")
        do {
            _ = try await fleet.engine.withLock("credential:api", wait: 0.2) { true }
            XCTFail("the lock is the replica's")
        } catch let error as FleetError {
            XCTAssertEqual(error.kind, .busy)
        }
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let killed = Date()
        let taken = try await fleet.engine.withLock("credential:api", wait: 2) { Date() }
        print("the lock was free \(Int(taken.timeIntervalSince(killed) * 1_000)) ms after its holder's SIGKILL")
        XCTAssertLessThan(taken.timeIntervalSince(killed), 0.5)
        XCTAssertTrue(waitUntil(timeout: 1) { fleet.memberCount == 1 }, "a killed replica leaves at the next heartbeat")
        await fleet.leave()
    }

    func testReplicasRefreshOncePerExpiryWithoutInvalidGrant() throws {
        try refreshOncePerExpiry(place: nil)
    }

    #if PostgreSQL
    func testReplicasRefreshOncePerExpiryOnPostgreSQL() throws {
        guard let url = ProcessInfo.processInfo.environment["RXNK_POSTGRES_URL"], !url.isEmpty else {
            return XCTFail("the trait PostgreSQL is on but RXNK_POSTGRES_URL is not set (Scripts/postgres.sh start DIR prints one)")
        }
        try refreshOncePerExpiry(place: url + "#replicas-" + UUID().uuidString.lowercased())
    }
    #endif

    /// Three replica processes on the fleet at `place` (nil: the test's directory; a
    /// `postgres://…#namespace` URL: that database).
    private func refreshOncePerExpiry(place: String?) throws {
        tokens.expiresIn = 1
        tokens.tokenDelay = 0.02
        try withReplicaFleet(place: place ?? directory.path) { fleet in
            try fleet.credentialStore(named: "api").save(
                OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(1))
            )
        }
        let duration = 3.0
        let started = Date()
        let replicas = try (0..<3).map { _ in
            try replica("callers", [
                "RXNK_FLEET_API": server.baseURL.absoluteString, "RXNK_FLEET_SECONDS": "\(duration)", "RXNK_FLEET_PLACE": place ?? directory.path,
            ])
        }
        for replica in replicas { replica.waitUntilExit() }
        let elapsed = Date().timeIntervalSince(started)
        var ok = 0, failed = 0
        for replica in replicas {
            XCTAssertEqual(replica.terminationStatus, 0)
            let file = directory.appendingPathComponent("result-\(replica.processIdentifier)")
            let counts = (try? String(contentsOf: file, encoding: .utf8))?.split(separator: " ").compactMap { Int($0) } ?? []
            if counts.count != 2 {
                let logs = (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter { $0.hasSuffix(".log") } ?? []
                let said = logs.compactMap { try? String(contentsOf: directory.appendingPathComponent($0), encoding: .utf8) }
                    .joined(separator: "\n").split(separator: "\n").filter { !$0.hasPrefix("Test Suite") }.suffix(20).joined(separator: "\n")
                XCTFail("replica \(replica.processIdentifier) wrote no counts (exit \(replica.terminationStatus)); the replicas said:\n\(said)")
            }
            ok += counts.first ?? 0
            failed += counts.last ?? 0
        }
        // A token lives 1 s and is refreshed 0.3 s before it expires: one refresh per 0.7 s of run.
        let expiries = Int((elapsed / 0.7).rounded(.up))
        print("3 replicas × 4 callers for \(String(format: "%.1f", elapsed)) s: \(ok) answers, \(failed) errors, \(tokens.refreshCount) refreshes at the token endpoint (≈ \(expiries) expiries), \(tokens.refusedCount) invalid_grant")
        XCTAssertEqual(failed, 0, "no error reached a caller")
        XCTAssertGreaterThan(ok, 30)
        XCTAssertEqual(tokens.refusedCount, 0, "no refresh token was spent twice")
        XCTAssertGreaterThanOrEqual(tokens.refreshCount, 2)
        XCTAssertLessThanOrEqual(tokens.refreshCount, expiries + 2, "one refresh per expiry in the whole fleet")
    }

    /// The replica process: does nothing in a normal run.
    func testReplicaProcess() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let mode = environment["RXNK_FLEET_REPLICA"], let path = environment["RXNK_FLEET_DIR"] else { return }
        try withReplicaFleet(place: environment["RXNK_FLEET_PLACE"] ?? path) { fleet in
            try replicaWork(mode, fleet: fleet, path: path, environment: environment)
        }
    }

    /// Runs `body` with a fleet at `place`: a directory, or (trait `PostgreSQL`) a
    /// `postgres://USER@HOST:PORT/DATABASE#NAMESPACE` URL, whose client runs meanwhile; leaves after.
    private func withReplicaFleet(place: String, _ body: (Fleet) throws -> Void) throws {
        #if PostgreSQL
        if let address = PostgresURL(place) {
            let postgres = PostgresClient(configuration: address.configuration)
            let running = Task { await postgres.run() }
            let fleet = try Fleet.postgreSQL(postgres, namespace: address.fragment ?? "replicas", heartbeatInterval: 0.1)
            defer {
                let left = DispatchSemaphore(value: 0)
                Task {
                    await fleet.leave()
                    running.cancel()
                    await running.value
                    left.signal()
                }
                left.wait()
            }
            return try body(fleet)
        }
        #endif
        let fleet = try Fleet.sameHost(directory: URL(fileURLWithPath: place), heartbeatInterval: 0.1)
        try body(fleet)
    }

    private func replicaWork(_ mode: String, fleet: Fleet, path: String, environment: [String: String]) throws {
        switch mode {
        case "lock":
            let marker = path + "/locked-\(getpid())"
            Task {
                try await fleet.engine.withLock("credential:api", wait: 5) {
                    _ = FileManager.default.createFile(atPath: marker, contents: nil)
                    try await Task.sleep(nanoseconds: 30_000_000_000)
                }
            }
            Thread.sleep(forTimeInterval: 30)
        case "callers":
            guard let api = environment["RXNK_FLEET_API"].flatMap(URL.init(string:)),
                  let seconds = environment["RXNK_FLEET_SECONDS"].flatMap(Double.init) else { return }
            let auth = OAuthAuthenticator(
                store: fleet.credentialStore(named: "api"),
                refresher: .tokenEndpoint(api.appendingPathComponent("oauth/token"), clientID: "daemon", clientSecret: "s3cret"),
                refreshSkew: 0.3, maxRefreshes: 1_000, refreshWindow: 1
            )
            let client = HTTPClient(baseURL: api, configuration: .init(timeout: 5, fleet: fleet), authenticator: auth)
            let counts = LockedBox((ok: 0, failed: 0))
            let end = Date().addingTimeInterval(seconds)
            DispatchQueue.concurrentPerform(iterations: 4) { caller in
                var index = 0
                while Date() < end {
                    index += 1
                    let done = DispatchSemaphore(value: 0)
                    let single: Single<User> = client.rx.requestObject(path: "/api/items/\(caller)-\(index)")
                    let subscription = single.subscribe(
                        onSuccess: { _ in counts.mutate { $0.ok += 1 }; done.signal() },
                        onFailure: { _ in counts.mutate { $0.failed += 1 }; done.signal() }
                    )
                    done.wait()
                    subscription.dispose()
                    Thread.sleep(forTimeInterval: 0.01)
                }
            }
            let result = counts.value
            try "\(result.ok) \(result.failed)".write(toFile: path + "/result-\(getpid())", atomically: true, encoding: .utf8)
        default:
            break
        }
    }
}
