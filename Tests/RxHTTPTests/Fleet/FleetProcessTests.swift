import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// Replicas as separate processes (this test binary started again in a replica mode, as
/// `DiskCacheTests` does) on one fleet directory: a lock holder killed with SIGKILL releases the
/// fleet, and dies out of `members`; three replicas of four callers each against one rotating token
/// endpoint refresh once per expiry, with no `invalid_grant` and no error to any caller.
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
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        return child
    }

    private func waitUntil(_ timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }

    func testAKilledLockHolderReleasesTheFleetAndLeavesIt() async throws {
        let fleet = try Fleet.sameHost(directory: directory, heartbeatInterval: 0.1)
        let holder = try replica("lock")
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        let marker = directory.appendingPathComponent("locked-\(holder.processIdentifier)").path
        XCTAssertTrue(waitUntil(20) { FileManager.default.fileExists(atPath: marker) }, "the replica took the lock")
        XCTAssertTrue(waitUntil(2) { fleet.memberCount == 2 }, "the replica is a member")
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
        XCTAssertTrue(waitUntil(1) { fleet.memberCount == 1 }, "a killed replica leaves at the next heartbeat")
        await fleet.leave()
    }

    func testReplicasRefreshOncePerExpiryWithoutInvalidGrant() throws {
        tokens.expiresIn = 1
        tokens.tokenDelay = 0.02
        let seeding = try Fleet.sameHost(directory: directory)
        try seeding.credentialStore(named: "api").save(
            OAuthCredential(accessToken: "access-1", refreshToken: "refresh-1", expiresAt: Date().addingTimeInterval(1))
        )
        let duration = 3.0
        let started = Date()
        let replicas = try (0..<3).map { _ in
            try replica("callers", ["RXNK_FLEET_API": server.baseURL.absoluteString, "RXNK_FLEET_SECONDS": "\(duration)"])
        }
        for replica in replicas { replica.waitUntilExit() }
        let elapsed = Date().timeIntervalSince(started)
        var ok = 0, failed = 0
        for replica in replicas {
            XCTAssertEqual(replica.terminationStatus, 0)
            let file = directory.appendingPathComponent("result-\(replica.processIdentifier)")
            let counts = (try? String(contentsOf: file, encoding: .utf8))?.split(separator: " ").compactMap { Int($0) } ?? []
            XCTAssertEqual(counts.count, 2, "replica \(replica.processIdentifier) wrote its counts")
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
        let fleet = try Fleet.sameHost(directory: URL(fileURLWithPath: path), heartbeatInterval: 0.1)
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
