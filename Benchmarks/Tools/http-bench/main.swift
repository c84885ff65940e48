import AsyncHTTPClient
import Foundation
import NIOCore
import RxCore
import RxHTTP
import RxNetworkKitAsyncHTTPClient
import RxTesting
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// HTTP workloads: raw URLSession dataTask + JSONDecoder, raw AsyncHTTPClient + JSONDecoder, and
// `client.rx.requestObject` over each transport, decoding the same ~330-byte JSON from one server.
// The server runs in another process (`http-bench serve`, or nginx: see http-bench-nginx.sh), so
// the CPU per request measured here (getrusage of this process) is the client's alone.
//
//   swift run -c release --package-path Benchmarks http-bench [rounds]
//   http-bench only <client> <count> <in flight>    (one client, for profilers)
//   http-bench rss <client> [in flight]             (RSS after 10,000 and after 100,000 requests)
//   http-bench cache [rounds]                       (CPU of a cache hit and of a 304 against a full request)
//
// Clients: URLSession, RxHTTP (over URLSessionTransport), AsyncHTTPClient, RxHTTP+AHC (over
// AsyncHTTPClientTransport). Both AsyncHTTPClient clients use the same configuration
// (AsyncHTTPClientTransport.daemonConfiguration, 16 connections per host). Three references that
// measure floors: URLSession+delegate (raw URLSession through a body-collecting delegate), AHC+hop
// and Transport+hop (see their starters).

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
    // For `http-bench cache`: fresh for an hour, and an ETag that always matches (a 304 each time).
    server.route(.get, "/person-fresh", LoopbackHTTPResponse.json(personJSON).withHeader("Cache-Control", "max-age=3600"))
    server.route(.get, "/person-etag") { request in
        if request.header("If-None-Match") == "\"p1\"" {
            return LoopbackHTTPResponse.status(304).withHeader("ETag", "\"p1\"").withHeader("Cache-Control", "max-age=0")
        }
        return LoopbackHTTPResponse.json(personJSON).withHeader("ETag", "\"p1\"").withHeader("Cache-Control", "max-age=0")
    }
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

// The document, for another server to serve the same bytes (http-bench-nginx.sh).
if CommandLine.arguments.dropFirst().first == "json" {
    print(personJSON, terminator: "")
    exit(0)
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

/// Raw URLSession sending the request the client sends (its three default headers) and reading the
/// answer's headers (`allHeaderFields`, which the client turns into its header list): the same
/// exchange, without the client.
func rawSameRequestStarter(url: URL) -> RequestStarter {
    let session = URLSession(configuration: daemonSessionConfiguration())
    let decoder = JSONDecoder()
    var request = URLRequest(url: url)
    for (name, value) in RxHTTP.HTTPClient.Configuration.standardHeaders.sorted(by: { $0.key < $1.key }) {
        request.setValue(value, forHTTPHeaderField: name)
    }
    let prepared = request
    return { done in
        session.dataTask(with: prepared) { data, response, error in
            guard error == nil, let data, let http = response as? HTTPURLResponse, http.statusCode == 200,
                  !http.allHeaderFields.isEmpty, (try? decoder.decode(Person.self, from: data)) != nil
            else { return done(false) }
            done(true)
        }.resume()
    }
}

/// Raw URLSession through a delegate that collects each task's body and decodes it when the task
/// completes: what any client pays that must see the head before the body (to refuse an oversized
/// body, to check its framing, to stream) instead of taking URLSession's buffered completion handler.
/// The floor of `URLSessionTransport`, without its checks.
func rawDelegateStarter(url: URL) -> RequestStarter {
    let collector = BodyCollector()
    let session = URLSession(configuration: daemonSessionConfiguration(), delegate: collector, delegateQueue: nil)
    return { done in
        let task = session.dataTask(with: url)
        collector.register(task, done)
        task.resume()
    }
}

final class BodyCollector: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var body = Data()
        let done: @Sendable (Bool) -> Void
    }
    private let pending = Mutex<[ObjectIdentifier: Pending]>([:])
    private let decoder = JSONDecoder()

    func register(_ task: URLSessionTask, _ done: @escaping @Sendable (Bool) -> Void) {
        pending.withLock { $0[ObjectIdentifier(task)] = Pending(done: done) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.withLock { $0[ObjectIdentifier(dataTask)]?.body.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        guard let finished = pending.withLock({ $0.removeValue(forKey: ObjectIdentifier(task)) }) else { return }
        let ok = error == nil && (task.response as? HTTPURLResponse)?.statusCode == 200
            && (try? decoder.decode(Person.self, from: finished.body)) != nil
        finished.done(ok)
    }
}

func rxStarter(baseURL: URL, transport: (any HTTPTransport)? = nil, cache: HTTPCache? = nil, path: String = "/person") -> RequestStarter {
    let client = RxHTTP.HTTPClient(baseURL: baseURL, configuration: .init(cache: cache), transport: transport)
    return { done in
        _ = client.rx.requestObject(path: path)
            .subscribe(onSuccess: { (_: Person) in done(true) }, onFailure: { _ in done(false) })
    }
}

/// The AsyncHTTPClient configuration of both AsyncHTTPClient columns.
let asyncHTTPClientConfiguration = AsyncHTTPClientTransport.daemonConfiguration(connectionsPerHost: 16)

func asyncHTTPClientStarter(url: URL) -> RequestStarter {
    let client = AsyncHTTPClient.HTTPClient(eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup, configuration: asyncHTTPClientConfiguration)
    let decoder = JSONDecoder()
    let target = url.absoluteString
    return { done in
        client.get(url: target, deadline: .now() + .seconds(15)).whenComplete { result in
            guard case .success(let response) = result, response.status == .ok, let body = response.body,
                  (try? decoder.decode(Person.self, from: Data(body.readableBytesView))) != nil
            else { return done(false) }
            done(true)
        }
    }
}

/// Raw AsyncHTTPClient sending the request the client sends (its three default headers) and reading
/// an answer's header, as the client reads several: the same exchange on the wire, without the client.
func asyncHTTPClientSameRequestStarter(url: URL) -> RequestStarter {
    let client = AsyncHTTPClient.HTTPClient(eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup, configuration: asyncHTTPClientConfiguration)
    let decoder = JSONDecoder()
    let target = url.absoluteString
    let fields = RxHTTP.HTTPClient.Configuration.standardHeaders.sorted { $0.key < $1.key }
    return { done in
        guard var request = try? AsyncHTTPClient.HTTPClient.Request(url: target, method: .GET) else { return done(false) }
        for (name, value) in fields {
            request.headers.add(name: name, value: value)
        }
        client.execute(request: request, deadline: .now() + .seconds(15)).whenComplete { result in
            guard case .success(let response) = result, response.status == .ok, let body = response.body,
                  response.headers.first(name: "Content-Type") != nil,
                  (try? decoder.decode(Person.self, from: Data(body.readableBytesView))) != nil
            else { return done(false) }
            done(true)
        }
    }
}

/// Raw AsyncHTTPClient whose answer is handed to a serial queue before it is decoded, as the client
/// delivers on its callback queue: the floor of any client that keeps that contract.
func asyncHTTPClientHopStarter(url: URL) -> RequestStarter {
    let client = AsyncHTTPClient.HTTPClient(eventLoopGroup: AsyncHTTPClient.HTTPClient.defaultEventLoopGroup, configuration: asyncHTTPClientConfiguration)
    let decoder = JSONDecoder()
    let queue = DispatchQueue(label: "http-bench.hop")
    let target = url.absoluteString
    return { done in
        client.get(url: target, deadline: .now() + .seconds(15)).whenComplete { result in
            queue.async {
                guard case .success(let response) = result, response.status == .ok, let body = response.body,
                      (try? decoder.decode(Person.self, from: Data(body.readableBytesView))) != nil
                else { return done(false) }
                done(true)
            }
        }
    }
}

/// `AsyncHTTPClientTransport` alone (the client's request headers, no client above it), answered on a
/// serial queue before decoding: what the transport adds to raw AsyncHTTPClient, apart from the client.
func transportHopStarter(url: URL) -> RequestStarter {
    let transport = AsyncHTTPClientTransport(configuration: asyncHTTPClientConfiguration)
    let decoder = JSONDecoder()
    let queue = DispatchQueue(label: "http-bench.transport")
    let prepared = HTTPTransportRequest(url: url, headers: RxHTTP.HTTPHeaders(RxHTTP.HTTPClient.Configuration().defaultHeaders))
    return { done in
        _ = transport.send(prepared, options: .standard) { result in
            queue.async {
                guard case .success(let response) = result, response.statusCode == 200,
                      (try? decoder.decode(Person.self, from: response.body)) != nil
                else { return done(false) }
                done(true)
            }
        }
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

// `http-bench cache-check poll|down <base URL> <cache directory>`: the cache against a server no one
// here wrote (nginx, started by cache-nginx.sh): what each of 100 polls was answered by.
if CommandLine.arguments.dropFirst().first == "cache-check" {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 3, let base = URL(string: arguments[1]) else {
        print("usage: http-bench cache-check poll|down <base URL> <cache directory>")
        exit(1)
    }
    let cache = HTTPCache(directory: URL(fileURLWithPath: arguments[2]))
    let client = RxHTTP.HTTPClient(baseURL: base, configuration: .init(timeout: 2, cache: cache))
    func poll(_ path: String) -> String {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex("none")
        _ = client.rx.response(CheckedPerson(path: path)).subscribe(
            onSuccess: { answer in outcome.withLock { $0 = answer.cacheStatus.rawValue }; done.signal() },
            onFailure: { error in outcome.withLock { $0 = "error \((error as? RxHTTP.HTTPClientError)?.code.rawValue ?? "?")" }; done.signal() }
        )
        done.wait()
        return outcome.withLock { $0 }
    }
    func summary(_ outcomes: [String]) -> String {
        Dictionary(grouping: outcomes, by: { $0 }).map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", ")
    }
    if arguments[0] == "poll" {
        for path in ["/stale", "/fresh"] {
            print("\(path): 100 polls: \(summary((0..<100).map { _ in poll(path) }))")
        }
        print("/sie: \(poll("/sie"))")
    } else {
        print("/sie with the server down, after a restart: \(summary((0..<3).map { _ in poll("/sie") }))")
        Thread.sleep(forTimeInterval: 3.5)
        print("/sie past its stale-if-error window: \(poll("/sie"))")
    }
    cache.flush()
    exit(0)
}

struct CheckedPerson: Request {
    typealias Response = Person
    let path: String
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
let starters: [(String, RequestStarter)] = [
    ("URLSession", rawStarter(url: url)),
    ("URLSession+delegate", rawDelegateStarter(url: url)),
    ("URLSession+same", rawSameRequestStarter(url: url)),
    ("RxHTTP", rxStarter(baseURL: baseURL)),
    // A client given a transport made by the caller: URLSession's delegate on the transport's own
    // queue, one hop to the client's callback queue per answer.
    ("RxHTTP+own", rxStarter(baseURL: baseURL, transport: URLSessionTransport(timeout: 15))),
    ("AsyncHTTPClient", asyncHTTPClientStarter(url: url)),
    ("RxHTTP+AHC", rxStarter(baseURL: baseURL, transport: AsyncHTTPClientTransport(configuration: asyncHTTPClientConfiguration))),
    ("AHC+hop", asyncHTTPClientHopStarter(url: url)),
    ("AHC+same", asyncHTTPClientSameRequestStarter(url: url)),
    ("Transport+hop", transportHopStarter(url: url)),
]
let scenarios: [(name: String, count: Int, inFlight: Int)] = [
    ("sequential", 2_000, 1), ("16 in flight", 10_000, 16), ("64 in flight", 10_000, 64),
]

/// This process's resident memory in bytes (Linux), or 0.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

if CommandLine.arguments.dropFirst().first == "rss" {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard let name = arguments.first, let starter = starters.first(where: { $0.0 == name })?.1 else {
        print("usage: http-bench rss <client> [in flight]")
        exit(1)
    }
    let inFlight = arguments.dropFirst().first.flatMap { Int($0) } ?? 16
    let first = measure(count: 10_000, inFlight: inFlight, start: starter)
    let at10k = residentBytes()
    let rest = measure(count: 90_000, inFlight: inFlight, start: starter)
    let at100k = residentBytes()
    print(String(
        format: "%@ at %d in flight: RSS %.1f MB after 10,000, %.1f MB after 100,000 (%+.1f%%), %d failures, %.0f req/s",
        name, inFlight, Double(at10k) / 1e6, Double(at100k) / 1e6, (Double(at100k) / Double(max(1, at10k)) - 1) * 100,
        first.failures + rest.failures, rest.requestsPerSecond
    ))
    try? serverInput?.fileHandleForWriting.close()
    serverProcess?.waitUntilExit()
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "cache" {
    // The same request three ways over each transport, in one run: from the network (no cache),
    // a cache hit (fresh for an hour), a revalidation answered 304 (the body from the store).
    let cacheRounds = CommandLine.arguments.dropFirst(2).first.flatMap { Int($0) } ?? 3
    let ahc = AsyncHTTPClientTransport(configuration: asyncHTTPClientConfiguration)
    let clients: [(String, RequestStarter)] = [
        ("URLSession: network", rxStarter(baseURL: baseURL)),
        ("URLSession: cache hit", rxStarter(baseURL: baseURL, cache: HTTPCache(directory: nil), path: "/person-fresh")),
        ("URLSession: 304", rxStarter(baseURL: baseURL, cache: HTTPCache(directory: nil), path: "/person-etag")),
        ("AHC: network", rxStarter(baseURL: baseURL, transport: ahc)),
        ("AHC: cache hit", rxStarter(baseURL: baseURL, transport: ahc, cache: HTTPCache(directory: nil), path: "/person-fresh")),
        ("AHC: 304", rxStarter(baseURL: baseURL, transport: ahc, cache: HTTPCache(directory: nil), path: "/person-etag")),
    ]
    for (_, starter) in clients { _ = measure(count: 200, inFlight: 4, start: starter) }
    var samples: [String: [RunResult]] = [:]
    for _ in 1...cacheRounds {
        for inFlight in [1, 16] {
            for (name, starter) in clients {
                samples["\(inFlight)|\(name)", default: []].append(measure(count: 5_000, inFlight: inFlight, start: starter))
            }
        }
    }
    print("Medians of \(cacheRounds) rounds of 5,000 requests; CPU per request of this process; ratio against the same transport's network request:")
    print("| in flight | client | req/s | CPU µs/req | CPU ratio |")
    print("|--:|---|--:|--:|--:|")
    for inFlight in [1, 16] {
        for (name, _) in clients {
            func value(_ name: String, _ metric: (RunResult) -> Double) -> Double {
                let values = (samples["\(inFlight)|\(name)"] ?? []).map(metric).sorted()
                return values.isEmpty ? .nan : values[values.count / 2]
            }
            let network = (name.hasPrefix("AHC") ? "AHC" : "URLSession") + ": network"
            print(String(format: "| %d | %@ | %.0f | %.1f | %.3f |", inFlight, name, value(name, \.requestsPerSecond),
                         value(name, \.cpuPerRequest) * 1e6, value(name, \.cpuPerRequest) / value(network, \.cpuPerRequest)))
        }
    }
    try? serverInput?.fileHandleForWriting.close()
    serverProcess?.waitUntilExit()
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "only" {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count == 3, let starter = starters.first(where: { $0.0 == arguments[0] })?.1,
          let count = Int(arguments[1]), let inFlight = Int(arguments[2])
    else {
        print("usage: http-bench only <URLSession|URLSession+delegate|URLSession+same|RxHTTP|RxHTTP+own|AsyncHTTPClient|RxHTTP+AHC|AHC+hop|AHC+same|Transport+hop> <count> <in flight>")
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
// Ratios: each RxHTTP column against the raw client under it (same transport), in the same run.
let rawOf = ["RxHTTP": "URLSession", "RxHTTP+own": "URLSession", "URLSession+delegate": "URLSession", "URLSession+same": "URLSession", "AHC+same": "AsyncHTTPClient", "RxHTTP+AHC": "AsyncHTTPClient", "AsyncHTTPClient": "URLSession", "AHC+hop": "AsyncHTTPClient", "Transport+hop": "AsyncHTTPClient"]
print("\nMedians over \(rounds) rounds; ratios against the raw client under each (RxHTTP and URLSession+delegate / URLSession, RxHTTP+AHC / AsyncHTTPClient, AsyncHTTPClient / URLSession, AHC+hop and Transport+hop / AsyncHTTPClient):")
print("| scenario | client | req/s | p50 µs | p99 µs | CPU µs/req | req/s ratio | CPU ratio |")
print("|---|---|--:|--:|--:|--:|--:|--:|")
let finalMedians = medians
func median(_ scenario: String, _ name: String, _ value: (RunResult) -> Double) -> Double {
    let values = (finalMedians["\(scenario)|\(name)"] ?? []).map(value).sorted()
    return values.isEmpty ? .nan : values[values.count / 2]
}
for scenario in scenarios {
    for (name, _) in starters {
        let rate = median(scenario.name, name, \.requestsPerSecond)
        let cpu = median(scenario.name, name, \.cpuPerRequest)
        let ratios = rawOf[name].map { raw in
            String(format: "%.2f | %.2f", rate / median(scenario.name, raw, \.requestsPerSecond), cpu / median(scenario.name, raw, \.cpuPerRequest))
        } ?? " | "
        print(String(
            format: "| %@ | %@ | %.0f | %.0f | %.0f | %.0f | %@ |",
            scenario.name, name, rate, median(scenario.name, name, \.p50) * 1e6, median(scenario.name, name, \.p99) * 1e6,
            cpu * 1e6, ratios
        ))
    }
}
print("load after: \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?")")
try? serverInput?.fileHandleForWriting.close()
serverProcess?.waitUntilExit()
