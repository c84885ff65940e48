import Foundation
#if Metrics
import Metrics
import MetricsTestKit
#endif
import RxNetworkKit
import RxTesting
import Synchronization

// Step 21: writes that survive a crash. A child process (the demo started again as `outbox-child`)
// enqueues 20 orders in an Outbox and delivers them to the embedded server, which applies each
// Idempotency-Key once and answers slowly; the child is killed with SIGKILL in the middle. A second
// child finds the orders on disk, delivers them (and 10 more), and the server shows each order
// applied exactly once.

/// An order the outbox keeps: a keyed POST.
private struct PlaceOrder: Request {
    typealias Response = Data
    var order: Int
    var path: String { "/demo-orders" }
    var method: HTTPMethod { .post }
    var idempotency: Idempotency { .keyed }
    var body: any RequestBody { JSONBody(["order": order]) }
}

/// The server's side: one application per key, the first answer again for a repeat.
private final class OrderLedger: Sendable {
    private let state = Mutex<(applied: [String: Int], requests: Int)>(([:], 0))

    func install(on server: LoopbackHTTPServer) {
        server.route(.post, "/demo-orders") { [self] request in
            guard let key = request.header("Idempotency-Key") else { return .status(400) }
            let order = (try? JSONSerialization.jsonObject(with: request.body) as? [String: Any])?["order"] as? Int ?? -1
            state.withLock { state in
                state.requests += 1
                if state.applied[key] == nil { state.applied[key] = order }
            }
            Thread.sleep(forTimeInterval: 0.03)
            return .json("{\"order\":\(order)}", status: 201)
        }
    }

    var orders: [Int] { state.withLock { Array($0.applied.values) } }
    var requests: Int { state.withLock { $0.requests } }
}

/// Runs the step on an outbox in a directory and, with the trait `PostgreSQL` and a database, on a
/// fleet's outbox; returns its lines.
func outboxStep(server: LoopbackHTTPServer) -> [String] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-demo-outbox-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var lines = ["in a directory:"] + crashScenario(server: server, place: directory.appendingPathComponent("outbox").path, directory: directory)
    #if PostgreSQL
    let engine = fleetEngine()
    if engine.place.hasPrefix("postgres://") {
        let place = engine.place.replacingOccurrences(of: "#demo-", with: "#demo-outbox-")
        lines += ["on a fleet's table, \(engine.description) (a dead child's claims pass on when its 1 s lease runs out):"]
            + crashScenario(server: server, place: place, directory: directory)
    } else {
        lines.append("a fleet's shared outbox: \(engine.note ?? "no PostgreSQL")")
    }
    #else
    lines.append("a fleet's shared outbox (fleet.outbox(named:)): swift run --traits PostgreSQL RxNetworkKitDemo")
    #endif
    return lines
}

/// Kills a child that delivers 20 orders, starts another with 10 more, and counts what the server
/// applied; `place` is the outbox's directory or a `postgres://…#namespace` fleet.
private func crashScenario(server: LoopbackHTTPServer, place: String, directory: URL) -> [String] {
    let ledger = OrderLedger()
    ledger.install(on: server)
    let log = directory.appendingPathComponent("children-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    func stored() -> Int {
        ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter { $0.hasPrefix("stored") }.count
    }
    func child(_ orders: ClosedRange<Int>) throws -> Process {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        child.arguments = ["outbox-child", place, server.baseURL.absoluteString, log.path, "\(orders.lowerBound)", "\(orders.upperBound)"]
        try child.run()
        return child
    }
    let started = Date()
    let first: Process
    do { first = try child(1...20) } catch { return ["could not start a child: \(error)"] }
    let deadline = Date().addingTimeInterval(20)
    while stored() < 8, first.isRunning, Date() < deadline { usleep(2_000) }
    kill(first.processIdentifier, SIGKILL)
    first.waitUntilExit()
    let storedAtDeath = stored()
    let appliedAtDeath = ledger.orders.count
    let onDisk = remaining(place)
    let sampled = sampledMetrics(place)
    let second: Process
    do { second = try child(21...30) } catch { return ["could not start a child: \(error)"] }
    second.waitUntilExit()
    let elapsed = Date().timeIntervalSince(started)
    let orders = ledger.orders
    let acknowledged = stored()
    let twice = orders.count - Set(orders).count
    let left = remaining(place)
    return [
        "child 1 killed (SIGKILL, \(first.terminationReason == .uncaughtSignal ? "signal \(first.terminationStatus)" : "exit")) after \(storedAtDeath) orders stored, "
            + "\(appliedAtDeath) applied: \(onDisk) entries left in the outbox",
        sampled,
        "child 2 delivered them and 10 more in \(String(format: "%.0f ms", elapsed * 1_000)) in all: \(acknowledged) orders acknowledged, "
            + "\(orders.count) applied\(orders.count > acknowledged ? " (\(orders.count - acknowledged) stored in the instant before the kill, unacknowledged)" : ""), "
            + "\(twice) twice, \(ledger.requests) requests (\(ledger.requests - orders.count) repeats answered by key), outbox left with \(left)",
        acknowledged <= orders.count && twice == 0 && left == 0 ? "every acknowledged order applied exactly once" : "AN ORDER WAS LOST OR APPLIED TWICE",
    ]
}

/// What the outbox at `place` holds: what a new instance reads there (waiting for a child's lock
/// to go), or a fleet's table as its first look sees it.
private func remaining(_ place: String) -> Int {
    guard let (outbox, close) = openOutbox(place) else { return -1 }
    defer { close() }
    return outbox.depth
}

/// With the trait `Metrics`: the outbox at `place` sampled once through `recordMetrics(name:)`.
private func sampledMetrics(_ place: String) -> String {
    #if Metrics
    guard let (outbox, close) = openOutbox(place) else { return "swift-metrics: the outbox cannot be opened" }
    defer { close() }
    let metrics = TestMetrics()
    let sampling = outbox.recordMetrics(name: "demo-orders", every: 60, factory: metrics)
    defer { sampling.dispose() }
    let dimensions = [("outbox", "demo-orders")]
    let deadline = Date().addingTimeInterval(2)
    while (try? metrics.expectMeter(HTTPClientMetrics.outboxOldestEntryAge, dimensions).lastValue) == nil, Date() < deadline { usleep(2_000) }
    let depth = (try? metrics.expectMeter(HTTPClientMetrics.outboxDepth, dimensions).lastValue).flatMap { $0 } ?? -1
    let age = (try? metrics.expectMeter(HTTPClientMetrics.outboxOldestEntryAge, dimensions).lastValue).flatMap { $0 } ?? -1
    return "swift-metrics (outbox.recordMetrics): \(HTTPClientMetrics.outboxDepth) \(Int(depth)), "
        + "\(HTTPClientMetrics.outboxOldestEntryAge) \(String(format: "%.2f", age)) s"
    #else
    return "swift-metrics of an outbox: swift run --traits Metrics RxNetworkKitDemo"
    #endif
}

/// The outbox at `place` (a directory, once the killed child's lock is gone; or a fleet's, on
/// PostgreSQL) and what to do when done.
private func openOutbox(_ place: String) -> (Outbox, () -> Void)? {
    #if PostgreSQL
    if place.hasPrefix("postgres://") {
        guard let (fleet, leave) = try? makeFleet(place), let outbox = try? fleet.outbox(named: "demo-orders", lease: 1, pollInterval: 0.05) else {
            return nil
        }
        return (outbox, {
            outbox.close()
            let left = DispatchSemaphore(value: 0)
            Task.detached {
                await leave()
                left.signal()
            }
            left.wait()
        })
    }
    #endif
    for _ in 0..<500 {
        if let outbox = try? Outbox(directory: URL(fileURLWithPath: place)) { return (outbox, { outbox.close() }) }
        usleep(10_000)
    }
    return nil
}

/// The child (`outbox-child PLACE URL LOG FIRST LAST`): opens the outbox, delivers, enqueues
/// orders FIRST…LAST writing `stored N` to LOG after each, and exits once the outbox is empty.
func runOutboxChild(_ arguments: [String]) -> Int32 {
    guard arguments.count == 5, let api = URL(string: arguments[1]), let low = Int(arguments[3]), let high = Int(arguments[4]), low <= high,
          let log = FileHandle(forWritingAtPath: arguments[2]) else { return 2 }
    log.seekToEndOfFile()
    guard let (outbox, close) = openOutbox(arguments[0]) else { return 3 }
    defer { close() }
    let client = HTTPClient(baseURL: api, configuration: .init(timeout: 5))
    let delivering = client.rx.deliver(outbox, options: OutboxDeliveryOptions(redeliveryDelay: .constant(time: 0.05))).subscribe()
    for order in low...high {
        guard (try? client.rx.enqueue(PlaceOrder(order: order), in: outbox).toBlocking(timeout: 5).single()) != nil else { return 4 }
        log.write(Data("stored \(order)\n".utf8))
    }
    let end = Date().addingTimeInterval(30)
    while outbox.depth > 0, Date() < end { usleep(5_000) }
    delivering.dispose()
    return outbox.depth == 0 ? 0 : 5
}
