import Foundation
import RxNetworkKit
import RxTesting
#if PostgreSQL
import PostgresNIO
#endif

// Step 19: three replicas of one daemon — child processes of this demo — share one fleet: one
// refresh per token expiry at the token endpoint, one quota, cooldowns. The embedded server issues
// tokens that live one second and rotate their refresh token (a spent one is `invalid_grant`),
// accepts only the current access token, and answers 429 above 40 requests in any second.

/// The fleet's side of the embedded server: tokens, the API and what it counted.
// @unchecked Sendable: every field is only touched under `lock`.
final class FleetDemoServer: @unchecked Sendable {
    private let lock = NSLock()
    private var generation = 1
    private var refreshes = 0
    private var refused = 0
    private var sends: [Date] = []
    private var tooMany = 0
    /// What the API lets through in any second.
    let serverLimit = 40

    var counts: (refreshes: Int, refused: Int, sends: Int, tooMany: Int, span: TimeInterval) {
        lock.withLock { (refreshes, refused, sends.count, tooMany, (sends.last ?? Date()).timeIntervalSince(sends.first ?? Date())) }
    }

    func install(on server: LoopbackHTTPServer) {
        server.route(.post, "/fleet/token") { [self] request in
            let presented = (request.bodyString ?? "").split(separator: "&").first { $0.hasPrefix("refresh_token=") }?.dropFirst(14) ?? ""
            return lock.withLock {
                refreshes += 1
                guard presented == "r\(generation)" else {
                    refused += 1
                    return .json(#"{"error":"invalid_grant"}"#, status: 400)
                }
                generation += 1
                return .json(#"{"access_token":"a\#(generation)","refresh_token":"r\#(generation)","token_type":"bearer","expires_in":1}"#)
            }
        }
        server.route(.get, "/fleet/api/*") { [self] request in
            lock.withLock {
                guard request.header("Authorization") == "Bearer a\(generation)" else { return .json(#"{"error":"expired"}"#, status: 401) }
                let now = Date()
                sends.append(now)
                let lastSecond = sends.reversed().prefix { now.timeIntervalSince($0) < 1 }.count
                guard lastSecond <= serverLimit else {
                    tooMany += 1
                    return LoopbackHTTPResponse(status: 429, headers: ["Retry-After": "1"], body: Data())
                }
                return .json(#"{"id":1,"name":"ok"}"#)
            }
        }
    }
}

/// Where the replicas meet: a directory (the same-host engine), or with the trait `PostgreSQL` a
/// database URL and a namespace.
func fleetEngine() -> (place: String, description: String, note: String?) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-demo-fleet-\(getpid())").path
    #if PostgreSQL
    if let url = ProcessInfo.processInfo.environment["RXNK_POSTGRES_URL"], !url.isEmpty {
        return (url + "#demo-\(getpid())", "PostgreSQL (RXNK_POSTGRES_URL)", nil)
    }
    // None given: a throwaway one from Debian's postgresql, if the script and the package are here.
    // Its URL comes through a file, not a pipe, which the server it starts would hold open.
    let printed = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-demo-pg-url-\(getpid())")
    defer { try? FileManager.default.removeItem(at: printed) }
    let started = Process()
    started.executableURL = URL(fileURLWithPath: "/bin/bash")
    started.arguments = ["Scripts/postgres.sh", "start", "/tmp/rxnk-demo-pg"]
    started.standardError = FileHandle.nullDevice
    if FileManager.default.createFile(atPath: printed.path, contents: nil), let output = try? FileHandle(forWritingTo: printed) {
        started.standardOutput = output
        if (try? started.run()) != nil {
            started.waitUntilExit()
            let url = ((try? String(contentsOf: printed, encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if started.terminationStatus == 0, url.hasPrefix("postgres://") {
                return (url + "#demo-\(getpid())", "a PostgreSQL started by Scripts/postgres.sh in /tmp/rxnk-demo-pg (stop it: Scripts/postgres.sh stop /tmp/rxnk-demo-pg)", nil)
            }
        }
    }
    return (directory, "one directory (the same-host engine)",
            "no PostgreSQL: set RXNK_POSTGRES_URL, or run `Scripts/postgres.sh install` from the repository's root")
    #else
    return (directory, "one directory (the same-host engine)", "on PostgreSQL: swift run --traits PostgreSQL RxNetworkKitDemo")
    #endif
}

/// A replica's fleet at `place` (a directory, or a `postgres://` URL whose fragment names the
/// namespace), and what to do when done.
func makeFleet(_ place: String) throws -> (Fleet, @Sendable () async -> Void) {
    #if PostgreSQL
    if let address = URLComponents(string: place), address.scheme == "postgres", let host = address.host, let user = address.user {
        let postgres = PostgresClient(configuration: .init(
            host: host, port: address.port ?? 5432, username: user, password: address.password,
            database: String(address.path.dropFirst()), tls: .disable
        ))
        let running = Task { await postgres.run() }
        let fleet = try Fleet.postgreSQL(postgres, namespace: address.fragment ?? "demo")
        return (fleet, { await fleet.leave(); running.cancel() })
    }
    #endif
    let fleet = try Fleet.sameHost(directory: URL(fileURLWithPath: place))
    return (fleet, { await fleet.leave() })
}

/// Runs the step: three replica processes for `seconds`, then what the server counted.
func fleetStep(server: LoopbackHTTPServer, seconds: Double = 3) -> [String] {
    let counted = FleetDemoServer()
    counted.install(on: server)
    let engine = fleetEngine()
    defer { if !engine.place.hasPrefix("postgres://") { try? FileManager.default.removeItem(atPath: engine.place) } }
    // The credential, seeded by a process of the fleet's namespace: the replicas' parent (this one).
    let seeded = seedFleetCredential(place: engine.place)
    if let failure = seeded { return ["the fleet cannot be used: \(failure)"] }
    let started = Date()
    var replicas: [(Process, Pipe)] = []
    for _ in 0..<3 {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["fleet-replica", engine.place, server.baseURL.absoluteString, "\(seconds)"]
        let output = Pipe()
        child.standardOutput = output
        do { try child.run() } catch { return ["could not start a replica: \(error)"] }
        replicas.append((child, output))
    }
    var answers = 0, errors = 0
    for (child, output) in replicas {
        let line = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        let numbers = line.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        answers += numbers.first ?? 0
        errors += numbers.dropFirst().first ?? 0
    }
    let elapsed = Date().timeIntervalSince(started)
    let counts = counted.counts
    return [
        "on \(engine.description)\(engine.note.map { "; \($0)" } ?? "")",
        "3 replicas × 4 callers for \(String(format: "%.1f", elapsed)) s: \(answers) answers, \(errors) errors to callers",
        // A token lives 1 s and is refreshed 0.3 s before it expires: one expiry per 0.7 s of traffic.
        "\(counts.refreshes) refreshes at the token endpoint in \(String(format: "%.1f", counts.span)) s of traffic with 1-second tokens "
            + "(one per expiry: at most \(Int((counts.span / 0.7).rounded(.up)) + 1)), \(counts.refused) invalid_grant",
        "\(counts.sends) sends at \(String(format: "%.1f", Double(counts.sends) / max(counts.span, 0.001)))/s with a fleet limit of 32/s and a burst of 4 (the server allows \(counted.serverLimit) in any second): \(counts.tooMany) 429s",
    ]
}

/// A replica (the demo started again as `fleet-replica DIR URL SECONDS`): four callers as fast as
/// the fleet's quota lets them, then one line `answers errors`.
func runFleetReplica(_ arguments: [String]) -> Int32 {
    guard arguments.count == 3, let api = URL(string: arguments[1]), let seconds = Double(arguments[2]) else { return 2 }
    do {
        let (fleet, leave) = try makeFleet(arguments[0])
        let auth = OAuthAuthenticator(
            store: fleet.credentialStore(named: "demo"),
            refresher: .tokenEndpoint(api.appendingPathComponent("fleet/token"), clientID: "demo"),
            refreshSkew: 0.3, maxRefreshes: 100, refreshWindow: 5
        )
        var configuration = HTTPClient.Configuration(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.05)))
        configuration.fleet = fleet
        configuration.hostProtection = HostProtection(rateLimit: RateLimit(requests: 32, per: 1, burst: 4, scope: .fleet))
        let client = HTTPClient(baseURL: api, configuration: configuration, authenticator: auth)
        let answers = LockedLines(), errors = LockedLines()
        let end = Date().addingTimeInterval(seconds)
        DispatchQueue.concurrentPerform(iterations: 4) { caller in
            var index = 0
            while Date() < end {
                index += 1
                let done = DispatchSemaphore(value: 0)
                let subscription = client.rx.request(Text(path: "/fleet/api/\(caller)/\(index)")).subscribe(
                    onSuccess: { _ in answers.append("ok"); done.signal() },
                    onFailure: { error in errors.append("\(error)"); done.signal() }
                )
                done.wait()
                subscription.dispose()
            }
        }
        Swift.print("\(answers.lines.count) \(errors.lines.count)")
        let left = DispatchSemaphore(value: 0)
        Task {
            await leave()
            left.signal()
        }
        left.wait()
        return 0
    } catch {
        Swift.print("0 1 \(error)")
        return 1
    }
}

/// Seeds the fleet's credential, the first a refresh will spend; returns the failure, if any. (A
/// fleet's store blocks the thread it is called on: a Dispatch thread, not the cooperative pool.)
func seedFleetCredential(place: String) -> String? {
    let outcome = LockedLines()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            let (fleet, leave) = try makeFleet(place)
            let store = fleet.credentialStore(named: "demo")
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                DispatchQueue.global().async {
                    continuation.resume(with: Result {
                        try store.save(OAuthCredential(accessToken: "a1", refreshToken: "r1", expiresAt: Date().addingTimeInterval(1)))
                    })
                }
            }
            await leave()
        } catch {
            outcome.append("\(error)")
        }
        done.signal()
    }
    done.wait()
    return outcome.lines.first
}
