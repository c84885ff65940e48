import Foundation
import RxNetworkKit
import RxNetworkKitAsyncHTTPClient
import RxTesting
import Synchronization

// The same requests over both transports, against an embedded server on 127.0.0.1: the one-line
// switch from URLSession to AsyncHTTPClient. Prints req/s and CPU per request of this process, the
// embedded server's included: in a debug build the server is the bottleneck, so run it with
// `-c release`, and see Benchmarks/http-bench-nginx.sh for figures against a server that is not.

struct User: Decodable, Sendable {
    let id: Int
    let name: String
}

let server = LoopbackHTTPServer(requestLogLimit: 0)
server.route(.get, "/users/42", .json(#"{"id":42,"name":"Ada"}"#))
do {
    try server.start()
} catch {
    print("could not start the embedded server: \(error)")
    exit(1)
}

func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// Runs `count` requests, `inFlight` at a time; returns (req/s, CPU µs per request, failures).
func run(_ client: RxNetworkKit.HTTPClient, count: Int, inFlight: Int) -> (Double, Double, Int) {
    let slots = DispatchSemaphore(value: inFlight)
    let group = DispatchGroup()
    let failures = Failures()
    let cpu = cpuSeconds()
    let start = Date()
    for _ in 0..<count {
        slots.wait()
        group.enter()
        _ = (client.rx.requestObject(path: "/users/42") as Single<User>).subscribe(
            onSuccess: { _ in slots.signal(); group.leave() },
            onFailure: { _ in failures.add(); slots.signal(); group.leave() }
        )
    }
    group.wait()
    let seconds = Date().timeIntervalSince(start)
    return (Double(count) / seconds, (cpuSeconds() - cpu) / Double(count) * 1e6, failures.count)
}

final class Failures: Sendable {
    private let storage = Mutex(0)
    func add() { storage.withLock { $0 += 1 } }
    var count: Int { storage.withLock { $0 } }
}

print("RxNetworkKit transports — embedded server on \(server.baseURL.absoluteString)\n")
let transports: [(String, any HTTPTransport)] = [
    ("URLSessionTransport (default)", URLSessionTransport()),
    ("AsyncHTTPClientTransport", AsyncHTTPClientTransport()),
]
var rates: [Double] = []
for (name, transport) in transports {
    let client = RxNetworkKit.HTTPClient(baseURL: server.baseURL, transport: transport)
    _ = run(client, count: 200, inFlight: 4)   // warm up: connections, lazy set-up
    let (rate, cpu, failed) = run(client, count: 3_000, inFlight: 16)
    rates.append(rate)
    print(String(format: "  %@: 3,000 requests at 16 in flight: %.0f req/s, %.0f µs CPU per request (server included), %d failed", name, rate, cpu, failed))
    _ = client.shutdown(gracePeriod: 1).toBlocking(timeout: 5).materialize()
}
print(String(format: "\n  AsyncHTTPClientTransport / URLSessionTransport: %.1f× the throughput", rates[1] / rates[0]))
server.stop()
