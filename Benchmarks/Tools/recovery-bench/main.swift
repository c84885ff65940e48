import Foundation
import RxCore
import RxHTTP
import RxTesting

// Recovery after an outage with the client's default settings, on real sockets.
//
// For each of N outages: the loopback server stops, a request starts (RetryPolicy with a 30 s
// delay, every other setting the default), fails (connection refused) and waits; after a random
// downtime of 0.3–3 s the server starts again on the same port. Reported: the time from the
// server's return to the request's success, and what ended the wait (reachability or timer).
// Then the probe rate: TCP connects opened per second (Linux /proc/net/snmp ActiveOpens, so run it
// on a quiet machine) while the client is idle, and while a request waits through a long outage.
//
//   swift run -c release --package-path Benchmarks recovery-bench [outages=25] [longOutage=10]

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let outages = arguments.first ?? 25
let longOutage = arguments.dropFirst().first ?? 10

/// Every TCP connect this machine opened so far (Linux: `Tcp: ActiveOpens`).
func activeOpens() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/net/snmp", encoding: .utf8) else { return nil }
    let lines = text.split(separator: "\n").filter { $0.hasPrefix("Tcp:") }
    guard lines.count >= 2 else { return nil }
    let names = lines[0].split(separator: " ")
    let values = lines[1].split(separator: " ")
    guard let index = names.firstIndex(of: "ActiveOpens"), index < values.count else { return nil }
    return Int(values[index])
}

final class Outcome: @unchecked Sendable {
    // @unchecked Sendable: every field is only touched under `lock`.
    private let lock = NSLock()
    private var finishedAt: Date?
    private var result: String?
    private var trigger: String?

    func retried(_ notification: RetryNotification<HTTPClientError>) {
        lock.withLock { trigger = notification.trigger.rawValue }
    }

    func finished(_ text: String) {
        lock.withLock {
            finishedAt = Date()
            result = text
        }
    }

    var snapshot: (Date?, String?, String?) {
        lock.withLock { (finishedAt, result, trigger) }
    }
}

struct Feed: Request {
    typealias Response = String
    var path: String { "/feed" }
}

let server = LoopbackHTTPServer(requestLogLimit: 10)
do {
    try server.start()
} catch {
    print("could not start the server: \(error)")
    exit(1)
}
server.route(.get, "/feed", .text("ok"))

func client(_ outcome: Outcome) -> HTTPClient {
    HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: RetryPolicy(
        maxAttempts: 100, delay: .constant(time: 30), onRetry: { outcome.retried($0) }
    )))
}

print("recovery with default settings: \(outages) outages of 0.3–3 s, a request waiting on a 30 s retry delay")
var recoveries: [Double] = []
var triggers: [String: Int] = [:]
var generator = SystemRandomNumberGenerator()
for round in 1...outages {
    let outcome = Outcome()
    let client = client(outcome)
    server.stop()
    let subscription = client.rx.request(Feed()).subscribe(
        onSuccess: { outcome.finished($0) }, onFailure: { outcome.finished("failed: \($0)") }
    )
    Thread.sleep(forTimeInterval: Double.random(in: 0.3...3, using: &generator))
    do {
        try server.start()
    } catch {
        print("restart failed: \(error)")
        exit(1)
    }
    let back = Date()
    let deadline = back.addingTimeInterval(40)
    while outcome.snapshot.0 == nil && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.001)
    }
    let (finished, result, trigger) = outcome.snapshot
    subscription.dispose()
    guard let finished, result == "ok" else {
        print("  outage \(round): \(result ?? "no result within 40 s")")
        continue
    }
    let milliseconds = finished.timeIntervalSince(back) * 1000
    recoveries.append(milliseconds)
    triggers[trigger ?? "none", default: 0] += 1
    print(String(format: "  outage %2d: recovered %4.0f ms after the server came back (%@)", round, milliseconds, trigger ?? "no retry"))
    fflush(nil)
}
let sorted = recoveries.sorted()
func percentile(_ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}
print(String(format: "recovery: p50 %.0f ms, p95 %.0f ms, max %.0f ms over %d outages; ended by %@",
             percentile(0.5), percentile(0.95), sorted.last ?? .nan, sorted.count,
             triggers.map { "\($0.key) \($0.value)" }.sorted().joined(separator: ", ")))

// Probe rate while idle: a client that made a request and has nothing to do.
let idleOutcome = Outcome()
let idle = client(idleOutcome)
_ = idle.rx.request(Feed()).subscribe(onSuccess: { idleOutcome.finished($0) }, onFailure: { _ in })
Thread.sleep(forTimeInterval: 1)
if let before = activeOpens() {
    Thread.sleep(forTimeInterval: 10)
    let opened = (activeOpens() ?? before) - before
    print(String(format: "probes while idle: %d connects in 10 s (%.1f/s, machine-wide)", opened, Double(opened) / 10))
}

// Probe rate while a request waits through a long outage.
let waitingOutcome = Outcome()
let waiting = client(waitingOutcome)
server.stop()
let subscription = waiting.rx.request(Feed()).subscribe(onSuccess: { waitingOutcome.finished($0) }, onFailure: { _ in })
Thread.sleep(forTimeInterval: 1)
if let before = activeOpens() {
    Thread.sleep(forTimeInterval: Double(longOutage))
    let opened = (activeOpens() ?? before) - before
    print(String(format: "probes while waiting through a %d s outage: %d connects (%.2f/s, machine-wide)",
                 longOutage, opened, Double(opened) / Double(longOutage)))
}
try? server.start()
let back = Date()
while waitingOutcome.snapshot.0 == nil && Date().timeIntervalSince(back) < 40 {
    Thread.sleep(forTimeInterval: 0.001)
}
if let finished = waitingOutcome.snapshot.0 {
    print(String(format: "after the %d s outage: recovered %.0f ms after the server came back (%@)",
                 longOutage, finished.timeIntervalSince(back) * 1000, waitingOutcome.snapshot.2 ?? "no retry"))
}
subscription.dispose()
server.stop()
