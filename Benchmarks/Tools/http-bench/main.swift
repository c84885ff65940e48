import Foundation
import RxCore
import RxHTTP
import RxTesting
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// HTTP workloads of issue 5: raw URLSession dataTask + JSONDecoder versus
// `client.rx.requestObject` decoding the same ~300-byte JSON from one LoopbackHTTPServer.
// The server runs in a child process (`http-bench serve`), so the CPU per request measured here
// (getrusage of this process) is the client's alone.
//
//   swift run -c release --package-path Benchmarks http-bench [rounds]
//   http-bench only <URLSession|RxHTTP> <count> <in flight>    (one client, for profilers)

struct Address: Decodable {
    let street: String
    let city: String
    let postcode: String
    let country: String
}

struct Person: Decodable {
    let id: Int
    let name: String
    let email: String
    let active: Bool
    let score: Double
    let tags: [String]
    let created: String
    let address: Address
    let bio: String
}

let personJSON = """
    {"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true,"score":98.5,\
    "tags":["math","engines","poetry"],"created":"2026-11-21T12:00:00Z","address":{"street":\
    "12 St James's Square","city":"London","postcode":"SW1Y 4JH","country":"GB"},\
    "bio":"Wrote the first published algorithm intended for a machine, the Analytical Engine."}
    """

// MARK: - Server process

func serve() -> Never {
    let server = LoopbackHTTPServer(requestLogLimit: 0)
    server.route(.get, "/person", .json(personJSON))
    do {
        try server.start()
    } catch {
        FileHandle.standardError.write(Data("http-bench serve: \(error)\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    // Serve until the parent closes our stdin (or dies).
    while readLine() != nil {}
    server.stop()
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "serve" {
    serve()
}

// MARK: - Measurement

/// Per-request latencies (seconds), recorded from URLSession's and the client's callback threads.
final class LatencyLog: Sendable {
    private let samples = Mutex<[Double]>([])
    private let failures = Atomic<Int>(0)

    func record(since start: UInt64, ok: Bool) {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        samples.withLock { $0.append(seconds) }
        if !ok { failures.add(1, ordering: .relaxed) }
    }

    var failureCount: Int { failures.load(ordering: .relaxed) }
    var sorted: [Double] { samples.withLock { $0.sorted() } }
}

func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Starts one request; calls `done(ok)` exactly once when it has finished.
typealias RequestStarter = (_ done: @escaping @Sendable (Bool) -> Void) -> Void

struct RunResult {
    let requestsPerSecond: Double
    let p50: Double
    let p99: Double
    let cpuPerRequest: Double
    let failures: Int
}

/// Runs `count` requests with at most `inFlight` outstanding and measures them.
func measure(count: Int, inFlight: Int, start: RequestStarter) -> RunResult {
    let log = LatencyLog()
    let slots = DispatchSemaphore(value: inFlight)
    let group = DispatchGroup()
    let cpuBefore = cpuSeconds()
    let wallBefore = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<count {
        slots.wait()
        group.enter()
        let begun = DispatchTime.now().uptimeNanoseconds
        start { ok in
            log.record(since: begun, ok: ok)
            slots.signal()
            group.leave()
        }
    }
    group.wait()
    let wall = Double(DispatchTime.now().uptimeNanoseconds - wallBefore) / 1e9
    let cpu = cpuSeconds() - cpuBefore
    let sorted = log.sorted
    func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
    return RunResult(
        requestsPerSecond: Double(count) / wall,
        p50: percentile(0.50),
        p99: percentile(0.99),
        cpuPerRequest: cpu / Double(count),
        failures: log.failureCount
    )
}

// MARK: - The two clients

func daemonSessionConfiguration() -> URLSessionConfiguration {
    // The same settings URLSessionTransport uses by default, so only the layers above differ.
    let configuration = URLSessionConfiguration.ephemeral
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.httpCookieAcceptPolicy = .never
    configuration.timeoutIntervalForRequest = 15
    return configuration
}

func rawStarter(url: URL) -> RequestStarter {
    let session = URLSession(configuration: daemonSessionConfiguration())
    let decoder = JSONDecoder()
    return { done in
        session.dataTask(with: url) { data, response, error in
            guard error == nil, let data, (response as? HTTPURLResponse)?.statusCode == 200,
                  (try? decoder.decode(Person.self, from: data)) != nil
            else { return done(false) }
            done(true)
        }.resume()
    }
}

func rxStarter(baseURL: URL) -> RequestStarter {
    let client = HTTPClient(baseURL: baseURL)
    return { done in
        _ = client.rx.requestObject(path: "/person")
            .subscribe(onSuccess: { (_: Person) in done(true) }, onFailure: { _ in done(false) })
    }
}

// MARK: - Main

func startServerProcess() -> (Process, Pipe, UInt16)? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL
    process.arguments = ["serve"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    do { try process.run() } catch { return nil }
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { return nil }
        line.append(chunk)
    }
    guard let text = String(data: line, encoding: .utf8),
          let port = UInt16(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else { return nil }
    return (process, input, port)
}

// HTTP_BENCH_PORT=<port> uses a server already running (`http-bench serve` started by hand), so a
// profiler attached to this process sees the client alone.
let serverProcess: Process?
let serverInput: Pipe?
let port: UInt16
if let given = ProcessInfo.processInfo.environment["HTTP_BENCH_PORT"].flatMap({ UInt16($0) }) {
    (serverProcess, serverInput, port) = (nil, nil, given)
} else if let (process, input, started) = startServerProcess() {
    (serverProcess, serverInput, port) = (process, input, started)
} else {
    print("could not start the server process")
    exit(1)
}
let baseURL = URL(string: "http://127.0.0.1:\(port)")!
let url = URL(string: "http://127.0.0.1:\(port)/person")!
let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 3 // "only" → 3, unused
let starters: [(String, RequestStarter)] = [("URLSession", rawStarter(url: url)), ("RxHTTP", rxStarter(baseURL: baseURL))]
let scenarios: [(name: String, count: Int, inFlight: Int)] = [("sequential", 2_000, 1), ("16 in flight", 10_000, 16)]

if CommandLine.arguments.dropFirst().first == "only" {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 3, let starter = starters.first(where: { $0.0 == arguments[0] })?.1,
          let count = Int(arguments[1]), let inFlight = Int(arguments[2])
    else {
        print("usage: http-bench only <URLSession|RxHTTP> <count> <in flight>")
        exit(1)
    }
    let result = measure(count: count, inFlight: inFlight, start: starter)
    print(String(format: "%.0f req/s, CPU %.0f µs/req, %d failures", result.requestsPerSecond, result.cpuPerRequest * 1e6, result.failures))
    try? serverInput?.fileHandleForWriting.close()
    serverProcess?.waitUntilExit()
    exit(0)
}

// Warm up both clients (connections, lazy initialisation).
for (_, starter) in starters { _ = measure(count: 200, inFlight: 4, start: starter) }

print("load before: \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")")
print("| scenario | client | round | req/s | p50 µs | p99 µs | CPU µs/req | failures |")
print("|---|---|--:|--:|--:|--:|--:|--:|")
var medians: [String: [RunResult]] = [:]
for round in 1...rounds {
    for scenario in scenarios {
        for (name, starter) in starters {
            let result = measure(count: scenario.count, inFlight: scenario.inFlight, start: starter)
            medians["\(scenario.name)|\(name)", default: []].append(result)
            print(String(
                format: "| %@ | %@ | %d | %.0f | %.0f | %.0f | %.0f | %d |",
                scenario.name, name, round, result.requestsPerSecond, result.p50 * 1e6, result.p99 * 1e6,
                result.cpuPerRequest * 1e6, result.failures
            ))
        }
    }
}
print("\nMedians over \(rounds) rounds (RxHTTP / URLSession):")
print("| scenario | client | req/s | p50 µs | p99 µs | CPU µs/req |")
print("|---|---|--:|--:|--:|--:|")
for scenario in scenarios {
    for (name, _) in starters {
        let results = medians["\(scenario.name)|\(name)"] ?? []
        func median(_ value: (RunResult) -> Double) -> Double {
            let values = results.map(value).sorted()
            return values.isEmpty ? .nan : values[values.count / 2]
        }
        print(String(
            format: "| %@ | %@ | %.0f | %.0f | %.0f | %.0f |",
            scenario.name, name, median(\.requestsPerSecond), median(\.p50) * 1e6, median(\.p99) * 1e6,
            median(\.cpuPerRequest) * 1e6
        ))
    }
}
print("load after: \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")")
try? serverInput?.fileHandleForWriting.close()
serverProcess?.waitUntilExit()
