import Dispatch
import Foundation
import RxCore
import RxHTTP
import RxTesting

// CPU per request of the client's own machinery, with nothing else in the way: requests answered
// by a StubTransport during `send` (no network, no timers), one at a time, through the callback API.
// Compares, in one run and in alternating rounds: no protection and no listener (the floor), host
// protection fully on, and one subscriber on `client.events`.
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
    let subscribe: Bool
}

func makeClient(_ protection: HostProtection) -> HTTPClient {
    let stub = StubTransport()
    stub.stub(where: { _ in true }, with: .json(#"{"id":1}"#))
    return HTTPClient(baseURL: URL(string: "https://api.test")!, configuration: .init(hostProtection: protection), transport: stub)
}

let everything = HostProtection(
    retryBudget: RetryBudget(ratio: 0.2, minRetriesPerSecond: 5),
    circuitBreaker: CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 10, window: 30, breakDuration: 5),
    maxConcurrentRequests: 64, maxQueuedRequests: 256
)
let setups = [
    Setup(name: "floor: no protection, no listener", client: makeClient(.none), subscribe: false),
    Setup(name: "host protection all on", client: makeClient(everything), subscribe: false),
    Setup(name: "default protection", client: makeClient(HostProtection()), subscribe: false),
    Setup(name: "one events subscriber", client: makeClient(.none), subscribe: true),
]

func run(_ setup: Setup, count: Int) -> Double {
    let events = setup.subscribe ? setup.client.events.subscribe(onNext: { _ in }) : nil
    let done = DispatchSemaphore(value: 0)
    let start = cpuSeconds()
    for _ in 0..<count {
        setup.client.requestObject(path: "/items/1") { (_: Result<Item, HTTPClientError>) in done.signal() }
        done.wait()
    }
    let elapsed = cpuSeconds() - start
    events?.dispose()
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
