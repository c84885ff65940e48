import Foundation
import RxNetworkKit
import RxTesting
#if AsyncHTTPClient
import RxNetworkKitAsyncHTTPClient
#endif

// `websocket [--duration 600] [--cycle 30] [--interval 0.01]` (trait AsyncHTTPClient): one WebSocket
// for the whole run, against a server that pushes a numbered message every `interval` seconds and
// drops the connection every `cycle` seconds. Every message the server sent must arrive once, in
// order; RSS and descriptors are sampled each minute.

/// What the server sent: each connection's range of sequence numbers, and whether its script ran
/// to the end (the last connection is cut by the end of the run).
final class SentLog: @unchecked Sendable {
    // @unchecked Sendable: every field is only touched under `lock`.
    private let lock = NSLock()
    private var next = 0
    private(set) var connections: [Range<Int>] = []

    func allocate(_ count: Int) -> Range<Int> {
        lock.withLock {
            let range = next..<(next + count)
            next += count
            connections.append(range)
            return range
        }
    }

    var ranges: [Range<Int>] { lock.withLock { connections } }
}

/// What the client received, in order.
final class ReceivedLog: @unchecked Sendable {
    // @unchecked Sendable: every field is only touched under `lock`.
    private let lock = NSLock()
    private var numbers: [Int] = []
    private var unparsable = 0
    private var states: [String: Int] = [:]
    private var end: String?

    func ended(_ how: String) { lock.withLock { end = how } }
    var ending: String? { lock.withLock { end } }

    func received(_ message: WebSocketMessage) {
        lock.withLock {
            if case .text(let text) = message, let number = Int(text) {
                numbers.append(number)
            } else {
                unparsable += 1
            }
        }
    }

    func state(_ state: WebSocketState) {
        let name = switch state {
        case .idle: "idle"
        case .connecting: "connecting"
        case .open: "open"
        case .reconnecting: "reconnecting"
        case .closed: "closed"
        }
        lock.withLock { states[name, default: 0] += 1 }
    }

    var snapshot: (numbers: [Int], unparsable: Int, states: [String: Int]) {
        lock.withLock { (numbers, unparsable, states) }
    }
}

func runWebSocketSoak(arguments: [String]) -> Int32 {
    func value(_ name: String, _ fallback: Double) -> Double {
        arguments.firstIndex(of: name).flatMap { arguments.dropFirst($0 + 1).first.flatMap(Double.init) } ?? fallback
    }
    let duration = value("--duration", 600)
    let cycle = max(1, value("--cycle", 30))
    let interval = max(0.001, value("--interval", 0.01))
    #if AsyncHTTPClient
    let server = LoopbackHTTPServer(requestLogLimit: 100)
    do {
        try server.start()
    } catch {
        print("error: \(error)")
        return 1
    }
    let sent = SentLog()
    let perConnection = Int(cycle / interval)
    server.route(.get, "/feed") { _ in
        let range = sent.allocate(perConnection)
        var steps: [LoopbackWebSocketStep] = []
        steps.reserveCapacity(perConnection * 2 + 1)
        for number in range {
            steps.append(.send(.text(String(number))))
            steps.append(.pause(interval))
        }
        steps.append(.drop)
        return .webSocket(steps)
    }
    let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5), transport: AsyncHTTPClientTransport())
    let socket = client.webSocket(
        path: "/feed",
        reconnect: ReconnectPolicy(delay: .exponential(initial: 0.05, multiplier: 2, maxDelay: 2)),
        options: WebSocketOptions(pingInterval: 5, pongTimeout: 5)
    )
    let received = ReceivedLog()
    let states = socket.state.subscribe(onNext: { received.state($0) })
    let messages = socket.messages.subscribe(
        onNext: { received.received($0) },
        onError: { received.ended("failed: \($0)") },
        onCompleted: { received.ended("completed") }
    )
    print("websocket soak: \(Int(duration)) s, the server drops every \(Int(cycle)) s, a message every \(interval * 1000) ms")
    let started = Date()
    var samples: [(minute: Int, rss: Int, fds: Int, messages: Int)] = []
    var nextSample = 0.0
    while Date().timeIntervalSince(started) < duration, received.ending == nil {
        let elapsed = Date().timeIntervalSince(started)
        if elapsed >= nextSample {
            let sample = (Int(elapsed / 60), residentSetKiB(), openFileDescriptors(), received.snapshot.numbers.count)
            samples.append(sample)
            print(String(format: "  t=%4.0fs rss=%6d KiB fds=%3d messages=%d connections=%d", elapsed, sample.1, sample.2, sample.3, sent.ranges.count))
            nextSample += 60
        }
        Thread.sleep(forTimeInterval: 1)
    }
    messages.dispose()
    states.dispose()
    let drained = DispatchSemaphore(value: 0)
    let shutdown = client.shutdown(gracePeriod: 2).subscribe { _ in drained.signal() }
    _ = drained.wait(timeout: .now() + 5)
    shutdown.dispose()
    server.stop()

    // Every connection but the last ran its script to the end: all its numbers must be there, in
    // order; of the last, a prefix.
    let (numbers, unparsable, stateCounts) = received.snapshot
    let ranges = sent.ranges
    var expected: [Int] = ranges.dropLast().flatMap { Array($0) }
    if let last = ranges.last {
        expected += Array(last.prefix(max(0, numbers.count - expected.count)))
    }
    let inOrderOnce = numbers == expected
    let duplicates = numbers.count - Set(numbers).count
    print("connections: \(ranges.count); messages sent in finished connections: \(ranges.dropLast().reduce(0) { $0 + $1.count }); "
          + "received: \(numbers.count) (\(unparsable) unparsable, \(duplicates) duplicates); every one once, in order: \(inOrderOnce)")
    print("states seen: " + stateCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    let afterFive = samples.first { $0.minute >= 5 } ?? samples.first
    if let first = afterFive, let last = samples.last {
        let growth = Double(last.rss - first.rss) / Double(max(first.rss, 1)) * 100
        print(String(format: "RSS %d → %d KiB (%+.1f%% from minute %d), descriptors %d → %d", first.rss, last.rss, growth, first.minute, first.fds, last.fds))
    }
    if let ending = received.ending { print("the socket ended early: \(ending)") }
    return inOrderOnce && received.ending == nil ? 0 : 1
    #else
    _ = (duration, cycle, interval)
    print("the WebSocket soak needs AsyncHTTPClientTransport: swift run --traits AsyncHTTPClient RxNetworkKitSoak websocket")
    return 0
    #endif
}
