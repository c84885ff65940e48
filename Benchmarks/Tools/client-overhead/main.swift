import Dispatch
import Foundation
import Logging
import Metrics
import RxCore
import RxHTTP
import RxTesting
import Tracing

// CPU per request of the client's own machinery, with nothing else in the way: requests answered
// by a StubTransport during `send` (no network, no timers), one at a time, through the callback API.
// Compares, in one run and in alternating rounds: no protection and no listener (the floor), host
// protection fully on, one subscriber on `client.events`, and each server-Swift integration with
// its backend doing nothing (swift-metrics' no-op factory, swift-distributed-tracing's no-op
// tracer, a swift-log logger at .info, which the plugin's .debug and .trace lines do not reach).
//
//   swift run -c release --package-path Benchmarks client-overhead [requests-per-round=20000] [rounds=5]

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let perRound = arguments.first ?? 20_000
let rounds = arguments.dropFirst().first ?? 5

struct Item: Decodable { let id: Int }

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

struct Setup {
    let name: String
    let client: HTTPClient
    /// What listens while the setup runs (an events subscriber, a metrics recorder).
    let listen: (HTTPClient) -> Disposable?

    init(_ name: String, _ client: HTTPClient, listen: @escaping (HTTPClient) -> Disposable? = { _ in nil }) {
        self.name = name
        self.client = client
        self.listen = listen
    }
}

func makeClient(
    _ protection: HostProtection, interceptors: [any HTTPInterceptor] = [], plugins: [any HTTPPlugin] = [], cache: HTTPCache? = nil
) -> HTTPClient {
    let stub = StubTransport()
    stub.stub(where: { _ in true }, with: .status(200, body: Data(#"{"id":1}"#.utf8), headers: [
        "Content-Type": "application/json", "Cache-Control": "max-age=3600", "ETag": "\"1\"",
    ]))
    return HTTPClient(
        baseURL: URL(string: "https://api.test")!,
        configuration: .init(hostProtection: protection, interceptors: interceptors, cache: cache), plugins: plugins, transport: stub
    )
}

let everything = HostProtection(
    retryBudget: RetryBudget(ratio: 0.2, minRetriesPerSecond: 5),
    circuitBreaker: CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 10, window: 30, breakDuration: 5),
    maxConcurrentRequests: 64, maxQueuedRequests: 256
)
var quietLogger = Logger(label: "client-overhead") { _ in SwiftLogNoOpLogHandler() }
quietLogger.logLevel = .info
let setups = [
    Setup("floor: no protection, no listener", makeClient(.none)),
    Setup("host protection all on", makeClient(everything)),
    Setup("default protection", makeClient(HostProtection())),
    Setup("one events subscriber", makeClient(.none)) { $0.events.subscribe(onNext: { _ in }) },
    Setup("metrics, no-op factory", makeClient(.none)) { $0.recordMetrics(factory: NOOPMetricsHandler.instance) },
    Setup("tracing, no-op tracer", makeClient(.none, interceptors: [TracingInterceptor(tracer: NoOpTracer())])),
    Setup("swift-log logger at .info", makeClient(.none, plugins: [NetworkLoggerPlugin(logger: quietLogger)])),
    // Every request after the first answered from memory: what a hit costs against the stub's send.
    Setup("cache hit (memory)", makeClient(.none, cache: HTTPCache(directory: nil))),
]

func run(_ setup: Setup, count: Int) -> Double {
    let listener = setup.listen(setup.client)
    let done = DispatchSemaphore(value: 0)
    let start = cpuSeconds()
    for _ in 0..<count {
        setup.client.requestObject(path: "/items/1") { (_: Result<Item, HTTPClientError>) in done.signal() }
        done.wait()
    }
    let elapsed = cpuSeconds() - start
    listener?.dispose()
    return elapsed / Double(count) * 1e6
}

// `CLIENT_OVERHEAD_ONLY=<index>` runs one setup once, for a profiler.
if let only = ProcessInfo.processInfo.environment["CLIENT_OVERHEAD_ONLY"].flatMap(Int.init), setups.indices.contains(only) {
    print(String(format: "%@: %.2f µs per request", setups[only].name, run(setups[only], count: perRound)))
    exit(0)
}
for setup in setups { _ = run(setup, count: 2_000) }   // warm-up
var samples = [String: [Double]]()
for _ in 0..<rounds {
    for setup in setups {
        samples[setup.name, default: []].append(run(setup, count: perRound))
    }
}
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
let floor = median(samples[setups[0].name] ?? [0])
print("CPU per request (µs, median of \(rounds) rounds of \(perRound)), StubTransport answering during send:")
for setup in setups {
    let value = median(samples[setup.name] ?? [0])
    print("  " + setup.name.padding(toLength: 36, withPad: " ", startingAt: 0) + String(format: "%7.2f µs  (%+.2f µs over the floor)", value, value - floor))
}
