import Foundation
import PostgresNIO
@_spi(RxNetworkKitInternals) import RxCore
import RxHTTP
import RxTesting
import Synchronization

// The durable outbox, measured (issue 40).
//
//   swift run -c release --package-path Benchmarks outbox-bench enqueue [count=2000] [concurrency=16] [directory=/tmp]
//       `enqueue` latency (p50, p99, max) one at a time — each a file written, flushed and renamed
//       and the directory flushed — and the throughput one at a time and with `concurrency` in flight.
//   swift run -c release --package-path Benchmarks outbox-bench deliver [count=2000] [concurrency=1]
//       Delivery throughput against an in-process loopback server that applies each key once:
//       `deliver` of `count` stored entries (`concurrentPerHost: concurrency`) against a raw loop of
//       the same keyed POSTs through `client.rx.request`, `concurrency` in flight; rounds alternated.
//   RXNK_POSTGRES_URL=postgres://… swift run -c release --package-path Benchmarks outbox-bench deliver-fleet [count=1000] [concurrency=1]
//       The same on a PostgreSQL fleet's outbox (`fleet.outbox(named:)`, one replica): enqueue
//       (a committed row) and delivery (claims, outcome rows, deletes) against the raw loop.

struct CreateOrder: Request {
    typealias Response = Data
    var order: Int
    var path: String { "/orders" }
    var method: HTTPMethod { .post }
    var idempotency: Idempotency { .keyed }
    var body: any RequestBody { JSONBody(["order": order]) }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let mode = arguments.first ?? "enqueue"
func argument(_ index: Int, _ fallback: Int) -> Int { arguments.count > index ? Int(arguments[index]) ?? fallback : fallback }

let server = LoopbackHTTPServer()
let applied = Mutex<Set<String>>([])
server.route(.post, "/orders") { request in
    let key = request.header("Idempotency-Key") ?? ""
    _ = applied.withLock { $0.insert(key) }
    return .json("{}", status: 201)
}
try server.start()
let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 10))

func freshOutbox(in parent: String) throws -> (Outbox, URL) {
    let directory = URL(fileURLWithPath: parent).appendingPathComponent("rxnk-outbox-bench-\(UUID().uuidString)")
    return (try Outbox(directory: directory, maxEntries: 1_000_000, maxBytes: 1 << 34), directory)
}

func enqueueOne(_ order: Int, _ outbox: Outbox) {
    let done = DispatchSemaphore(value: 0)
    let subscription = client.rx.enqueue(CreateOrder(order: order), in: outbox).subscribe(onSuccess: { _ in done.signal() }, onFailure: { error in
        print("enqueue failed: \(error)")
        done.signal()
    })
    done.wait()
    subscription.dispose()
}

/// Runs `count` operations with `concurrency` in flight; `start(i, done)` starts the i-th.
func inFlight(_ count: Int, _ concurrency: Int, _ start: @escaping @Sendable (Int, @escaping @Sendable () -> Void) -> Void) -> Double {
    let slots = DispatchSemaphore(value: concurrency)
    let all = DispatchGroup()
    let began = Date()
    for index in 0..<count {
        slots.wait()
        all.enter()
        start(index) {
            slots.signal()
            all.leave()
        }
    }
    all.wait()
    return Date().timeIntervalSince(began)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

/// The peer of `enqueue`: the same durable write by hand — a temporary file of `bytes` bytes
/// written, fsynced, renamed, and the directory fsynced — `count` times, one at a time; latencies in ms.
func rawDurableWrites(_ count: Int, bytes: Int, in parent: String) -> [Double] {
    let directory = parent + "/rxnk-raw-\(UUID().uuidString)"
    mkdir(directory, 0o700)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let payload = [UInt8](repeating: 7, count: bytes)
    var latencies: [Double] = []
    for index in 0..<count {
        let start = Date()
        let temporary = directory + "/.\(index).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        _ = payload.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        rename(temporary, directory + "/\(index).entry")
        let dir = open(directory, O_RDONLY | O_CLOEXEC)
        fsync(dir)
        close(dir)
        latencies.append(Date().timeIntervalSince(start) * 1_000)
    }
    return latencies
}

/// The outbox `deliver` measures: a fresh directory, or a fleet's table in a fresh namespace; and
/// what to do when done.
func makeOutbox(fleet: Bool) throws -> (Outbox, () -> Void) {
    guard fleet else {
        let (outbox, directory) = try freshOutbox(in: FileManager.default.temporaryDirectory.path)
        return (outbox, { try? FileManager.default.removeItem(at: directory) })
    }
    guard let url = ProcessInfo.processInfo.environment["RXNK_POSTGRES_URL"], let address = URLComponents(string: url),
          let host = address.host, let user = address.user else {
        print("deliver-fleet needs RXNK_POSTGRES_URL (Scripts/postgres.sh start DIR prints one)")
        exit(2)
    }
    let postgres = PostgresClient(configuration: .init(
        host: host, port: address.port ?? 5432, username: user, password: address.password, database: String(address.path.dropFirst()), tls: .disable
    ))
    let running = Task { await postgres.run() }
    let fleet = try Fleet.postgreSQL(postgres, namespace: "bench-\(UUID().uuidString.lowercased())")
    let outbox = try fleet.outbox(named: "orders", maxEntries: 1_000_000, maxBytes: 1 << 34, pollInterval: 0.05)
    return (outbox, {
        let left = DispatchSemaphore(value: 0)
        Task.detached {
            await fleet.leave()
            running.cancel()
            left.signal()
        }
        left.wait()
    })
}

switch mode {
case "enqueue":
    let count = argument(1, 2_000)
    let concurrency = argument(2, 16)
    let parent = arguments.count > 3 ? arguments[3] : FileManager.default.temporaryDirectory.path
    let (outbox, directory) = try freshOutbox(in: parent)
    defer { try? FileManager.default.removeItem(at: directory) }
    // Rounds of enqueues alternated with rounds of the same write by hand, so that both see the
    // same disk (its flush time drifts several-fold on a shared machine).
    var latencies: [Double] = []
    var raw: [Double] = []
    var serial = 0.0
    let rounds = 5
    var entryBytes = 0
    for round in 0..<rounds {
        let began = Date()
        for order in (round * count / rounds)..<((round + 1) * count / rounds) {
            let start = Date()
            enqueueOne(order, outbox)
            latencies.append(Date().timeIntervalSince(start) * 1_000)
        }
        serial += Date().timeIntervalSince(began)
        entryBytes = outbox.byteCount / max(outbox.depth, 1)
        raw += rawDurableWrites(count / rounds, bytes: entryBytes, in: parent)
    }
    latencies.sort()
    raw.sort()
    let (concurrent, second) = try freshOutbox(in: parent)
    defer { try? FileManager.default.removeItem(at: second) }
    let parallel = inFlight(count, concurrency) { order, done in
        _ = client.rx.enqueue(CreateOrder(order: order), in: concurrent).subscribe(onSuccess: { _ in done() }, onFailure: { _ in done() })
    }
    print(String(format: "enqueue, one at a time: %d entries in %.2f s = %.0f/s; latency p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                 count, serial, Double(count) / serial, percentile(latencies, 0.5), percentile(latencies, 0.99), latencies.last ?? 0))
    print(String(format: "enqueue, %d in flight: %d entries in %.2f s = %.0f/s (one directory flush per batch)",
                 concurrency, count, parallel, Double(count) / parallel))
    print(String(format: "peer: the same durable write by hand (%d bytes, fsync, rename, fsync of the directory): p50 %.2f ms, p99 %.2f ms; enqueue's p50 is %.2f× it",
                 entryBytes, percentile(raw, 0.5), percentile(raw, 0.99), percentile(latencies, 0.5) / percentile(raw, 0.5)))
    print("depths \(outbox.depth), \(concurrent.depth); on \(parent)")
case "deliver", "deliver-fleet":
    let count = argument(1, mode == "deliver" ? 2_000 : 1_000)
    let concurrency = argument(2, 1)
    var outboxTimes: [Double] = []
    var rawTimes: [Double] = []
    var enqueueTimes: [Double] = []
    for round in 0..<3 {
        // The outbox: `count` entries stored, then one deliver until all have their outcome.
        let (outbox, done) = try makeOutbox(fleet: mode == "deliver-fleet")
        let stored = Date()
        for order in 0..<count { enqueueOne(order, outbox) }
        enqueueTimes.append(Date().timeIntervalSince(stored))
        let delivered = DispatchSemaphore(value: 0)
        let outcomes = Mutex(0)
        let began = Date()
        let subscription = client.rx.deliver(outbox, options: OutboxDeliveryOptions(concurrentPerHost: concurrency)).subscribe(onNext: { _ in
            if outcomes.withLock({ $0 += 1; return $0 }) == count { delivered.signal() }
        })
        delivered.wait()
        let outboxTime = Date().timeIntervalSince(began)
        subscription.dispose()
        done()
        // The raw loop: the same keyed POSTs, `concurrency` in flight.
        let rawTime = inFlight(count, concurrency) { order, done in
            _ = client.rx.request(CreateOrder(order: order)).subscribe(onSuccess: { _ in done() }, onFailure: { _ in done() })
        }
        outboxTimes.append(outboxTime)
        rawTimes.append(rawTime)
        print(String(format: "round %d: deliver %.0f/s, raw loop %.0f/s", round + 1, Double(count) / outboxTime, Double(count) / rawTime))
    }
    let outboxRate = Double(count) / outboxTimes.sorted()[1]
    let rawRate = Double(count) / rawTimes.sorted()[1]
    print(String(format: "%@, %d in flight per host: %.0f entries/s against a raw loop's %.0f requests/s (%.2f×), medians of 3; enqueue one at a time %.0f/s",
                 mode == "deliver" ? "deliver (a directory)" : "deliver (a PostgreSQL fleet's table)", concurrency, outboxRate, rawRate,
                 outboxRate / rawRate, Double(count) / enqueueTimes.sorted()[1]))
default:
    print("usage: outbox-bench enqueue|deliver …")
}
server.stop()
