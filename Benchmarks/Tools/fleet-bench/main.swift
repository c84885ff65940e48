import Foundation
import PostgresNIO
@_spi(RxNetworkKitInternals) import RxCore
@_spi(RxNetworkKitInternals) import RxHTTP
import RxTesting

// A fleet of replicas, measured (issue 35). Replicas are this executable started again
// (`replica …`), each its own process with its own client; the servers run in this process.
//
//   swift run -c release --package-path Benchmarks fleet-bench refresh [replicas=4] [callers=8] [seconds=60] [lifetime=2]
//       One rotating token endpoint (a spent refresh token is invalid_grant), tokens that live
//       `lifetime` seconds, an API that accepts only the current access token: refreshes at the
//       endpoint against the expiries, invalid_grant, errors to callers.
//   swift run -c release --package-path Benchmarks fleet-bench quota [replicas=4] [callers=8] [seconds=20] [serverLimit=200]
//       An API that answers 429 above `serverLimit` requests in any second; the replicas share
//       RateLimit(requests: 0.9 × serverLimit, per: 1, burst: serverLimit / 20, scope: .fleet):
//       the share of 429s and the rate reached against the server's limit.
//   swift run -c release --package-path Benchmarks fleet-bench cost [requests=20000] [limit=5000] [burst=50]
//       CPU per request and engine operations per 1,000 requests of a `.fleet` limit against the
//       same `.process` one (one client, 16 in flight, rounds alternated, medians).
//   swift run -c release --package-path Benchmarks fleet-bench cooldown [rounds=20]
//       How long after one replica's 429 (Retry-After) another replica's gate holds the host.
//
// The engine is the same-host one in a fresh temporary directory; with RXNK_POSTGRES_URL set
// (`Scripts/postgres.sh start DIR` prints one) it is PostgreSQL, in a fresh namespace, each
// replica with a `PostgresClient` of its own.

struct Text: Request {
    typealias Response = String
    let path: String
}

/// What the servers count.
final class Ledger: @unchecked Sendable {
    // @unchecked Sendable: every field is only touched under `lock`.
    private let lock = NSLock()
    private var generation = 1
    private var issuedAt: [Date] = [Date()]
    private(set) var refreshes = 0
    private(set) var refused = 0
    private var sends: [Date] = []
    private(set) var tooMany = 0
    private(set) var unauthorized = 0

    func snapshot() -> (refreshes: Int, refused: Int, sends: [Date], tooMany: Int, unauthorized: Int, issued: [Date]) {
        lock.withLock { (refreshes, refused, sends, tooMany, unauthorized, issuedAt) }
    }

    func install(on server: LoopbackHTTPServer, lifetime: Int, serverLimit: Int?) {
        server.route(.post, "/token") { [self] request in
            let presented = (request.bodyString ?? "").split(separator: "&").first { $0.hasPrefix("refresh_token=") }?.dropFirst(14) ?? ""
            return lock.withLock {
                refreshes += 1
                guard presented == "r\(generation)" else {
                    refused += 1
                    return .json(#"{"error":"invalid_grant"}"#, status: 400)
                }
                generation += 1
                issuedAt.append(Date())
                return .json(#"{"access_token":"a\#(generation)","refresh_token":"r\#(generation)","token_type":"bearer","expires_in":\#(lifetime)}"#)
            }
        }
        server.route(.get, "/api/*") { [self] request in
            lock.withLock {
                guard request.header("Authorization") == "Bearer a\(generation)" else {
                    unauthorized += 1
                    return .json(#"{"error":"expired"}"#, status: 401)
                }
                let now = Date()
                sends.append(now)
                if let serverLimit {
                    var inLastSecond = 0
                    for sent in sends.reversed() {
                        guard now.timeIntervalSince(sent) < 1 else { break }
                        inLastSecond += 1
                    }
                    if inLastSecond > serverLimit {
                        tooMany += 1
                        return LoopbackHTTPResponse(status: 429, headers: ["Retry-After": "1"], body: Data())
                    }
                }
                return .text("ok")
            }
        }
    }
}

func number(_ index: Int, _ fallback: Double) -> Double {
    let values = CommandLine.arguments.dropFirst(2)
    guard index < values.count, let value = Double(values[values.index(values.startIndex, offsetBy: index)]) else { return fallback }
    return value
}

/// Where a run's replicas meet: a `postgres://` URL whose fragment is a fresh namespace, or a
/// fresh temporary directory.
func freshPlace() -> String {
    let name = "rxnk-fleet-bench-\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
    if let url = ProcessInfo.processInfo.environment["RXNK_POSTGRES_URL"], url.hasPrefix("postgres://") {
        return url + "#" + name
    }
    return FileManager.default.temporaryDirectory.appendingPathComponent(name).path
}

/// What the engine is, for the printed lines.
func engineName(_ place: String) -> String {
    place.hasPrefix("postgres://") ? "PostgreSQL" : "same-host"
}

/// Removes a run's directory (a namespace's rows stay: they are small and the cluster is a
/// throwaway one).
func removePlace(_ place: String) {
    if !place.hasPrefix("postgres://") { try? FileManager.default.removeItem(atPath: place) }
}

/// A fleet at `place`; a PostgreSQL one runs a client of its own for the rest of the process.
func makeFleet(_ place: String) throws -> Fleet {
    guard let address = URLComponents(string: place), address.scheme == "postgres", let host = address.host, let user = address.user else {
        return try Fleet.sameHost(directory: URL(fileURLWithPath: place))
    }
    let postgres = PostgresClient(configuration: .init(
        host: host, port: address.port ?? 5432, username: user, password: address.password,
        database: String(address.path.dropFirst()), tls: .disable
    ))
    Task { await postgres.run() }
    return try Fleet.postgreSQL(postgres, namespace: address.fragment ?? "bench")
}

/// Starts `count` replicas and returns their `answers errors cpu` lines.
func runReplicas(_ count: Int, arguments: [String]) -> [[Double]] {
    let children = (0..<count).compactMap { _ -> (Process, Pipe)? in
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["replica"] + arguments
        let output = Pipe()
        child.standardOutput = output
        guard (try? child.run()) != nil else { return nil }
        return (child, output)
    }
    return children.map { child, output in
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        return text.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }
}

/// CPU seconds this process used so far (user + system).
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

// MARK: Replica

/// `replica PLACE URL CALLERS SECONDS LIMIT BURST`: callers as fast as the fleet lets them; prints
/// `answers errors cpuSeconds`.
func replica(_ arguments: [String]) -> Int32 {
    guard arguments.count == 6, let api = URL(string: arguments[1]), let callers = Int(arguments[2]),
          let seconds = Double(arguments[3]), let limit = Int(arguments[4]), let burst = Int(arguments[5]) else { return 2 }
    guard let fleet = try? makeFleet(arguments[0]) else { return 1 }
    let auth = OAuthAuthenticator(
        store: fleet.credentialStore(named: "bench"),
        refresher: .tokenEndpoint(api.appendingPathComponent("token"), clientID: "bench"),
        refreshSkew: 0.5, maxRefreshes: 1_000, refreshWindow: 10
    )
    var configuration = HTTPClient.Configuration(timeout: 10, retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.05)))
    configuration.fleet = fleet
    if limit > 0 {
        configuration.hostProtection = HostProtection(rateLimit: RateLimit(requests: limit, per: 1, burst: burst, scope: .fleet))
    }
    let client = HTTPClient(baseURL: api, configuration: configuration, authenticator: auth)
    let counts = LockedState<(answers: Int, errors: Int)>.make((0, 0))
    let end = Date().addingTimeInterval(seconds)
    DispatchQueue.concurrentPerform(iterations: callers) { caller in
        var index = 0
        while Date() < end {
            index += 1
            let done = DispatchSemaphore(value: 0)
            let subscription = client.rx.request(Text(path: "/api/\(caller)/\(index)")).subscribe(
                onSuccess: { _ in counts.withLock { $0.answers += 1 }; done.signal() },
                onFailure: { _ in counts.withLock { $0.errors += 1 }; done.signal() }
            )
            done.wait()
            subscription.dispose()
        }
    }
    let result = counts.withLock { $0 }
    print("\(result.answers) \(result.errors) \(cpuSeconds())")
    return 0
}

// MARK: Scenarios

func refreshScenario() {
    let replicas = Int(number(0, 4)), callers = Int(number(1, 8)), seconds = number(2, 60), lifetime = Int(number(3, 2))
    let server = LoopbackHTTPServer(requestLogLimit: 10)
    let ledger = Ledger()
    ledger.install(on: server, lifetime: lifetime, serverLimit: nil)
    guard (try? server.start()) != nil else { return print("the server did not start") }
    let place = freshPlace()
    defer { removePlace(place) }
    guard let seed = try? makeFleet(place),
          (try? seed.credentialStore(named: "bench").save(OAuthCredential(accessToken: "a1", refreshToken: "r1", expiresAt: Date().addingTimeInterval(Double(lifetime))))) != nil
    else { return print("the fleet cannot be used") }
    let started = Date()
    let lines = runReplicas(replicas, arguments: [place, server.baseURL.absoluteString, "\(callers)", "\(seconds)", "0", "1"])
    let elapsed = Date().timeIntervalSince(started)
    let snapshot = ledger.snapshot()
    let answers = lines.reduce(0) { $0 + Int($1.first ?? 0) }, errors = lines.reduce(0) { $0 + Int($1.dropFirst().first ?? 0) }
    // Expiries: each token lives `lifetime` s and is refreshed 0.5 s before it ends, so while the
    // replicas send, one expiry comes every lifetime − 0.5 s.
    let traffic = (snapshot.sends.last ?? started).timeIntervalSince(snapshot.sends.first ?? started)
    let expiries = traffic / (Double(lifetime) - 0.5)
    print("refresh (\(engineName(place))): \(replicas) replicas × \(callers) callers, \(String(format: "%.1f", elapsed)) s, tokens of \(lifetime) s (refreshed 0.5 s early)")
    print("  refreshes at the token endpoint: \(snapshot.refreshes) for \(String(format: "%.1f", expiries)) expiries in \(String(format: "%.1f", traffic)) s of traffic; invalid_grant: \(snapshot.refused)")
    print("  answers: \(answers) (\(String(format: "%.0f", Double(answers) / max(traffic, 0.001)))/s), errors to callers: \(errors), 401s replayed: \(snapshot.unauthorized)")
    server.stop()
}

func quotaScenario() {
    let replicas = Int(number(0, 4)), callers = Int(number(1, 8)), seconds = number(2, 20), serverLimit = Int(number(3, 200))
    let limit = serverLimit * 9 / 10, burst = max(1, serverLimit / 20)
    let server = LoopbackHTTPServer(requestLogLimit: 10)
    let ledger = Ledger()
    ledger.install(on: server, lifetime: 3_600, serverLimit: serverLimit)
    guard (try? server.start()) != nil else { return print("the server did not start") }
    let place = freshPlace()
    defer { removePlace(place) }
    guard let seed = try? makeFleet(place),
          (try? seed.credentialStore(named: "bench").save(OAuthCredential(accessToken: "a1", refreshToken: "r1", expiresAt: Date().addingTimeInterval(3_600)))) != nil
    else { return print("the fleet cannot be used") }
    let lines = runReplicas(replicas, arguments: [place, server.baseURL.absoluteString, "\(callers)", "\(seconds)", "\(limit)", "\(burst)"])
    let snapshot = ledger.snapshot()
    let errors = lines.reduce(0) { $0 + Int($1.dropFirst().first ?? 0) }
    // The steady rate: sends after the first second (the replicas start one by one) to the end.
    let sends = snapshot.sends
    let steady = sends.filter { $0.timeIntervalSince(sends.first ?? Date()) >= 1 }
    let span = (steady.last ?? Date()).timeIntervalSince(steady.first ?? Date())
    let rate = Double(steady.count) / max(span, 0.001)
    print("quota (\(engineName(place))): \(replicas) replicas × \(callers) callers, \(Int(seconds)) s, server 429s above \(serverLimit)/s, RateLimit(requests: \(limit), per: 1, burst: \(burst), scope: .fleet)")
    print("  sends: \(sends.count + snapshot.tooMany), 429s: \(snapshot.tooMany) (\(String(format: "%.2f", 100 * Double(snapshot.tooMany) / Double(max(1, sends.count + snapshot.tooMany)))) %), steady rate \(String(format: "%.1f", rate))/s = \(String(format: "%.2f", rate / Double(serverLimit))) × the server's limit; errors to callers: \(errors)")
    server.stop()
}

func costScenario() {
    let requests = Int(number(0, 20_000)), limit = Int(number(1, 5_000)), burst = Int(number(2, 50))
    let server = LoopbackHTTPServer(requestLogLimit: 10)
    server.route(.get, "/ok", .text("ok"))
    guard (try? server.start()) != nil else { return print("the server did not start") }
    let place = freshPlace()
    defer { removePlace(place) }
    guard let fleet = try? makeFleet(place) else { return print("the fleet cannot be used") }
    func run(_ scope: RateLimit.Scope) -> (cpu: Double, operations: Int, seconds: Double) {
        var configuration = HTTPClient.Configuration(timeout: 10)
        configuration.fleet = fleet
        configuration.hostProtection = HostProtection(rateLimit: RateLimit(requests: limit, per: 1, burst: burst, scope: scope))
        let client = HTTPClient(baseURL: server.baseURL, configuration: configuration)
        let slots = DispatchSemaphore(value: 16)
        let group = DispatchGroup()
        let operations = fleet.engineOperationCount
        let cpu = cpuSeconds(), start = Date()
        for _ in 0..<requests {
            slots.wait()
            group.enter()
            _ = client.rx.request(Text(path: "/ok")).subscribe(
                onSuccess: { _ in slots.signal(); group.leave() }, onFailure: { _ in slots.signal(); group.leave() }
            )
        }
        group.wait()
        return (cpuSeconds() - cpu, fleet.engineOperationCount - operations, Date().timeIntervalSince(start))
    }
    _ = run(.process)   // warm-up
    var local: [(cpu: Double, operations: Int, seconds: Double)] = [], shared: [(cpu: Double, operations: Int, seconds: Double)] = []
    for _ in 0..<3 {
        local.append(run(.process))
        shared.append(run(.fleet))
    }
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    let perRequest = { (cpu: Double) in cpu / Double(requests) * 1e6 }
    let processCPU = median(local.map(\.cpu)), fleetCPU = median(shared.map(\.cpu))
    print("cost (\(engineName(place))): \(requests) requests × 3 rounds each, 16 in flight, one client, RateLimit(requests: \(limit), per: 1, burst: \(burst)); this process's CPU (the server's included), medians")
    print("  .process: \(String(format: "%.1f", perRequest(processCPU))) µs CPU per request at \(String(format: "%.0f", Double(requests) / median(local.map(\.seconds))))/s; "
          + ".fleet: \(String(format: "%.1f", perRequest(fleetCPU))) µs at \(String(format: "%.0f", Double(requests) / median(shared.map(\.seconds))))/s "
          + "(\(String(format: "%+.1f", perRequest(fleetCPU - processCPU))) µs)")
    let operations = { (runs: [(cpu: Double, operations: Int, seconds: Double)]) in Double(runs.reduce(0) { $0 + $1.operations }) / Double(3 * requests) * 1_000 }
    print("  engine operations per 1,000 requests: .fleet \(String(format: "%.1f", operations(shared))), .process \(String(format: "%.1f", operations(local))) (heartbeats only)")
    server.stop()
}

func cooldownScenario() {
    let rounds = Int(number(0, 20))
    let server = LoopbackHTTPServer(requestLogLimit: 10)
    server.route(.get, "/limited", LoopbackHTTPResponse(status: 429, headers: ["Retry-After": "1"], body: Data()))
    server.route(.get, "/ok", .text("ok"))
    guard (try? server.start()) != nil else { return print("the server did not start") }
    var latencies: [Double] = []
    for _ in 0..<rounds {
        let place = freshPlace()
        defer { removePlace(place) }
        guard let first = try? makeFleet(place), let second = try? makeFleet(place) else { continue }
        let seeing = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, fleet: first))
        let sibling = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, fleet: second))
        let held = LockedState<Date?>.make(nil)
        let events = sibling.events.subscribe(onNext: { event in
            if case .held(.cooldown) = event.kind { held.withLock { if $0 == nil { $0 = Date() } } }
        })
        let done = DispatchSemaphore(value: 0)
        _ = seeing.rx.request(Text(path: "/limited")).subscribe(onSuccess: { _ in done.signal() }, onFailure: { _ in done.signal() })
        done.wait()
        let seen = Date()
        // The sibling sends every 2 ms until one of its sends is held.
        while held.withLock({ $0 }) == nil, Date().timeIntervalSince(seen) < 1 {
            _ = sibling.rx.request(Text(path: "/ok")).subscribe(onSuccess: { _ in }, onFailure: { _ in })
            usleep(2_000)
        }
        if let at = held.withLock({ $0 }) { latencies.append(at.timeIntervalSince(seen) * 1_000) }
        events.dispose()
        _ = seeing.shutdown(gracePeriod: 0).subscribe()
        _ = sibling.shutdown(gracePeriod: 0).subscribe()
    }
    let sorted = latencies.sorted()
    guard !sorted.isEmpty else { return print("cooldown: no round held the sibling") }
    print("cooldown (\(engineName(freshPlace()))): \(sorted.count) of \(rounds) rounds, a sibling's 429 held this replica after p50 \(String(format: "%.0f", sorted[sorted.count / 2])) ms, max \(String(format: "%.0f", sorted.last ?? 0)) ms")
    server.stop()
}

switch CommandLine.arguments.dropFirst().first {
case "replica": exit(replica(Array(CommandLine.arguments.dropFirst(2))))
case "refresh": refreshScenario()
case "quota": quotaScenario()
case "cost": costScenario()
case "cooldown": cooldownScenario()
default: print("usage: fleet-bench refresh|quota|cost|cooldown [numbers…]")
}
