import Foundation
import RxNetworkKit
import RxTesting

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

/// Runs the step: three replica processes for `seconds`, then what the server counted.
func fleetStep(server: LoopbackHTTPServer, seconds: Double = 3) -> [String] {
    let counted = FleetDemoServer()
    counted.install(on: server)
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-demo-fleet-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    do {
        let fleet = try Fleet.sameHost(directory: directory)
        try fleet.credentialStore(named: "demo").save(OAuthCredential(accessToken: "a1", refreshToken: "r1", expiresAt: Date().addingTimeInterval(1)))
    } catch {
        return ["the fleet directory cannot be used: \(error)"]
    }
    let started = Date()
    var replicas: [(Process, Pipe)] = []
    for _ in 0..<3 {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["fleet-replica", directory.path, server.baseURL.absoluteString, "\(seconds)"]
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
        "3 replicas × 4 callers for \(String(format: "%.1f", elapsed)) s: \(answers) answers, \(errors) errors to callers",
        // A token lives 1 s and is refreshed 0.3 s before it expires: one expiry per 0.7 s of traffic.
        "\(counts.refreshes) refreshes at the token endpoint in \(String(format: "%.1f", counts.span)) s of traffic with 1-second tokens "
            + "(one per expiry: at most \(Int((counts.span / 0.7).rounded(.up)) + 1)), \(counts.refused) invalid_grant",
        "\(counts.sends) sends at \(String(format: "%.1f", Double(counts.sends) / max(counts.span, 0.001)))/s under a fleet limit of 32/s (the server allows \(counted.serverLimit)): \(counts.tooMany) 429s",
    ]
}

/// A replica (the demo started again as `fleet-replica DIR URL SECONDS`): four callers as fast as
/// the fleet's quota lets them, then one line `answers errors`.
func runFleetReplica(_ arguments: [String]) -> Int32 {
    guard arguments.count == 3, let api = URL(string: arguments[1]), let seconds = Double(arguments[2]) else { return 2 }
    do {
        let fleet = try Fleet.sameHost(directory: URL(fileURLWithPath: arguments[0]))
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
        return 0
    } catch {
        Swift.print("0 1 \(error)")
        return 1
    }
}
