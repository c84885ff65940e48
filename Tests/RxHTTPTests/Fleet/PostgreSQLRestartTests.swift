// Runs with the package trait `PostgreSQL` only, against a PostgreSQL cluster of its own that it
// starts, stops and starts again with Scripts/postgres.sh (Debian's postgresql must be installed:
// `Scripts/postgres.sh install`).
#if PostgreSQL
import Foundation
import PostgresNIO
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// The engine failing never stops requests: two replicas send through a fleet quota on a real
/// PostgreSQL, which is stopped under load and started again on the same port. Every request
/// succeeds, each replica says the engine went away and came back, and the quota is the fleet's
/// again afterwards.
final class PostgreSQLRestartTests: LoopbackClientTestCase {
    private var cluster = ""
    private var script = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        cluster = "/tmp/rxnk-restart-\(getpid())"
        // Tests/RxHTTPTests/Fleet/this file → the repository's root.
        script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/postgres.sh").path
        server.route(.get, "/ok", .text("ok"))
    }

    override func tearDown() {
        _ = try? postgres("stop", cluster)
        try? FileManager.default.removeItem(atPath: cluster)
        super.tearDown()
    }

    /// Runs Scripts/postgres.sh; returns what it printed on stdout. Through a file, not a pipe: the
    /// server it starts inherits the descriptors Foundation leaves open, and would hold a pipe open.
    private func postgres(_ arguments: String...) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-postgres-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else { throw XCTSkip("no temporary file") }
        defer { try? FileManager.default.removeItem(at: output) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script] + arguments
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw XCTSkip("Scripts/postgres.sh \(arguments.joined(separator: " ")) failed (is Debian's postgresql installed? Scripts/postgres.sh install)")
        }
        return (try String(contentsOf: output, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testStoppingAndRestartingPostgreSQLUnderLoadNeverStopsRequests() throws {
        let url = try postgres("start", cluster)
        guard let address = PostgresURL(url) else { return XCTFail("not a URL: \(url)") }
        let postgresClients = (0..<2).map { _ in PostgresClient(configuration: address.configuration) }
        let running = postgresClients.map { client in Task { await client.run() } }
        defer { for task in running { task.cancel() } }
        let namespace = "restart-" + UUID().uuidString.lowercased()
        let fleets = try postgresClients.map { try Fleet.postgreSQL($0, namespace: namespace, heartbeatInterval: 0.2, operationTimeout: 0.5) }
        // A quota the load stays under (the test is about the engine, not about waiting for tokens).
        let protection = HostProtection(rateLimit: RateLimit(requests: 2_000, per: 1, burst: 100, scope: .fleet))
        // One replica with the client's own transport, one with a transport made by the caller (its
        // delegate on a queue of its own): both answer throughout.
        let clients = fleets.enumerated().map { index, fleet in
            HTTPClient(
                baseURL: server.baseURL, configuration: .init(timeout: 5, hostProtection: protection, fleet: fleet),
                transport: index == 0 ? nil : URLSessionTransport(timeout: 15)
            )
        }
        let changes = LockedBox([[Bool]](repeating: [], count: 2))
        let watches = clients.enumerated().map { index, client in
            client.events.subscribe(onNext: { event in
                if case .fleetEngineChanged(let available) = event.kind { changes.mutate { $0[index].append(available) } }
            })
        }
        defer { for watch in watches { watch.dispose() } }
        XCTAssertTrue(waitUntil(timeout: 5) { fleets.allSatisfy { $0.memberCount == 2 } }, "both replicas joined")

        // Load: four callers per replica, one request after another, until told to stop.
        let counts = LockedBox((ok: 0, failed: 0, duringOutage: [0, 0]))
        let outage = LockedBox(false)
        let stop = LockedBox(false)
        let load = DispatchGroup()
        for caller in 0..<8 {
            DispatchQueue.global().async(group: load) {
                while !stop.value {
                    let done = DispatchSemaphore(value: 0)
                    let subscription = clients[caller % 2].rx.request(Text(path: "/ok")).subscribe(
                        onSuccess: { _ in counts.mutate { $0.ok += 1; if outage.value { $0.duringOutage[caller % 2] += 1 } }; done.signal() },
                        onFailure: { _ in counts.mutate { $0.failed += 1 }; done.signal() }
                    )
                    done.wait()
                    subscription.dispose()
                }
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        outage.mutate { $0 = true }
        _ = try postgres("stop", cluster)
        XCTAssertTrue(waitUntil(timeout: 5) { changes.value.allSatisfy { $0 == [false] } }, "each replica says the engine is away: \(changes.value)")
        Thread.sleep(forTimeInterval: 0.3)
        let restarted = try postgres("start", cluster, String(address.port))
        XCTAssertEqual(restarted, url, "the same port, so that the clients find it again")
        outage.mutate { $0 = false }
        // A connection the pool kept from before the stop may fail once more as the server comes
        // back (away and back again, said as such); each replica ends rejoined. How soon is the
        // caller's PostgresClient's to say: it retries a refused connection after a back-off that
        // grows by a quarter per attempt up to a minute (8–9 s after a few seconds' outage, more
        // under ThreadSanitizer), so the bound is that minute; here it rejoins within a second.
        XCTAssertTrue(
            waitUntil(timeout: 60) { changes.value.allSatisfy { $0.first == false && $0.last == true } && fleets.allSatisfy(\.isEngineAvailable) },
            "each replica rejoins: \(changes.value)"
        )
        let rejoined = counts.value.ok
        Thread.sleep(forTimeInterval: 0.3)
        stop.mutate { $0 = true }
        guard load.wait(timeout: .now() + 10) == .success else {
            let accounts = fleets.flatMap { fleet in fleet.quotasForTests.map { "\($0.snapshot)" } }
            return XCTFail("callers still waiting 10 s after the last request was due; the quota accounts: \(accounts)")
        }
        let result = counts.value
        print("PostgreSQL stopped and restarted under load: \(result.ok) answers (\(result.duringOutage) per replica while it was down, \(result.ok - rejoined) after the rejoin), \(result.failed) errors")
        XCTAssertEqual(result.failed, 0, "no request failed because the engine did")
        XCTAssertTrue(result.duringOutage.allSatisfy { $0 > 0 }, "requests went on at each replica, on local protection: \(result.duringOutage)")
        XCTAssertGreaterThan(result.ok, rejoined, "and after the rejoin")
        XCTAssertFalse(fleets.contains { !$0.isEngineAvailable })
        for client in clients { _ = client.shutdown(gracePeriod: 0).subscribe() }
        let left = DispatchSemaphore(value: 0)
        Task {
            for fleet in fleets { await fleet.leave() }
            left.signal()
        }
        left.wait()
    }
}

private struct Text: Request {
    typealias Response = String
    let path: String
}
#endif
