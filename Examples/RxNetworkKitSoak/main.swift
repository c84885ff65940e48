import Foundation
import Synchronization
import RxNetworkKit
import RxTesting

// A soak run for daemons: a client polls a LoopbackHTTPServer every 100 ms while the server goes
// down and comes back every 10 s; requests retry when the server is reachable again. It samples
// RSS and open file descriptors, accounts for every request (success or typed failure), measures
// how fast each outage is recovered, and prints a summary.
//
// The server runs in a child process (this executable in `serve` mode), killed and started again
// on the same port for each outage: a real restart, and RSS and descriptors measured are the
// client's alone, as in a daemon.
//
//   swift run -c release RxNetworkKitSoak [--duration 600] [--poll 0.1] [--cycle 10] [--downtime 2] [--probe 0.5]
//   swift run RxNetworkKitSoak hostile [--rounds 20]     (every bad-input case in rounds; see HostileRounds.swift)
//   swift run -c release --traits AsyncHTTPClient RxNetworkKitSoak websocket [--duration 600] [--cycle 30]
//                                                         (one WebSocket through a drop every 30 s; see WebSocketSoak.swift)
//   swift run RxNetworkKitSoak daemon [--duration 180]   (everything at once, one client, real servers that fail on a
//                                                         schedule; 3600 for the hour; see DaemonSoak.swift)

struct Options {
    var duration: TimeInterval = 600
    var poll: TimeInterval = 0.1
    var cycle: TimeInterval = 10
    var downtime: TimeInterval = 2
    var probe: TimeInterval = 0.5

    init(arguments: [String]) {
        var index = 1
        while index + 1 < arguments.count {
            let value = Double(arguments[index + 1])
            switch (arguments[index], value) {
            case ("--duration", let value?): duration = value
            case ("--poll", let value?): poll = value
            case ("--cycle", let value?): cycle = value
            case ("--downtime", let value?): downtime = value
            case ("--probe", let value?): probe = value
            default: print("ignoring \(arguments[index]) \(arguments[index + 1])")
            }
            index += 2
        }
    }
}

struct Status: Decodable {
    let ok: Bool
}

/// Everything the run records; touched from the client's queues and the main thread.
final class Ledger: @unchecked Sendable {
    // @unchecked Sendable: every field is only touched under `lock`.
    private let lock = NSLock()
    private var started = 0
    private var succeeded = 0
    private var failures: [HTTPClientError.Code: Int] = [:]
    private var otherFailures = 0
    private var lastSuccess: Date?
    private var outages: [(down: Date, up: Date?, recovered: Date?)] = []

    func didStart() { lock.withLock { started += 1 } }

    func didSucceed(at date: Date) {
        lock.withLock {
            succeeded += 1
            lastSuccess = date
            if let index = outages.lastIndex(where: { $0.up != nil && $0.recovered == nil }),
               let up = outages[index].up, date >= up {
                outages[index].recovered = date
            }
        }
    }

    func didFail(_ error: Error) {
        lock.withLock {
            if let error = error as? HTTPClientError {
                failures[error.code, default: 0] += 1
            } else {
                otherFailures += 1
            }
        }
    }

    func serverWentDown(at date: Date) { lock.withLock { outages.append((date, nil, nil)) } }

    func serverCameBack(at date: Date) {
        lock.withLock {
            if let index = outages.indices.last { outages[index].up = date }
        }
    }

    var snapshot: (started: Int, succeeded: Int, failures: [HTTPClientError.Code: Int], other: Int,
                   recoveries: [TimeInterval], unrecovered: Int) {
        lock.withLock {
            let completed = outages.filter { $0.up != nil }
            let recoveries = completed.compactMap { outage in outage.recovered.flatMap { r in outage.up.map { r.timeIntervalSince($0) } } }
            return (started, succeeded, failures, otherFailures, recoveries, completed.count - recoveries.count)
        }
    }
}

func residentSetKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// Dispatch opens its event loop's descriptors (epoll, eventfd, timerfd) once per process, on the
/// first timer: opening them before a descriptor baseline keeps them from counting as a client's.
func warmUpDispatch() {
    let warmUp = DispatchSource.makeTimerSource(queue: .global())
    warmUp.schedule(deadline: .now())
    warmUp.setEventHandler {}
    warmUp.resume()
    Thread.sleep(forTimeInterval: 0.05)
    warmUp.cancel()
}

func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}

/// `serve [--port N]`: the server side, run as a child process; prints its port, then serves.
if CommandLine.arguments.dropFirst().first == "serve" {
    let port = CommandLine.arguments.firstIndex(of: "--port").flatMap { index in
        CommandLine.arguments.dropFirst(index + 1).first.flatMap { UInt16($0) }
    } ?? 0
    let server = LoopbackHTTPServer(port: port, requestLogLimit: 10)
    do {
        try server.start()
    } catch {
        print("error: \(error)")
        exit(1)
    }
    server.route(.get, "/status", .json(#"{"ok":true}"#))
    print(server.port)
    fflush(nil)
    while true { Thread.sleep(forTimeInterval: 3600) }
}

/// `websocket [--duration S] [--cycle S] [--interval S]`: one WebSocket through drops (see WebSocketSoak.swift).
if CommandLine.arguments.dropFirst().first == "websocket" {
    exit(runWebSocketSoak(arguments: CommandLine.arguments))
}

/// `daemon [--duration S]`: one long-lived client against real servers that fail on a schedule
/// (see DaemonSoak.swift); `serve-api`, `serve-oauth` and `serve-hostile` are its child processes.
if CommandLine.arguments.dropFirst().first == "daemon" {
    exit(DaemonSoak.run(arguments: CommandLine.arguments))
}
// A server child inherits the daemon soak's ignored SIGTERM (ignored signals survive exec): it
// must die of one, as a server would.
if CommandLine.arguments.dropFirst().first?.hasPrefix("serve") == true {
    signal(SIGTERM, SIG_DFL)
}
if CommandLine.arguments.dropFirst().first == "serve-api" {
    APIServer.serve(arguments: CommandLine.arguments)
}
if CommandLine.arguments.dropFirst().first == "serve-oauth" {
    OAuthServer.serve(arguments: CommandLine.arguments)
}
if CommandLine.arguments.dropFirst().first == "serve-hostile" {
    HostileServer.serve()
}

/// `hostile [--rounds N]`: every bad-input case, in rounds (see HostileRounds.swift).
if CommandLine.arguments.dropFirst().first == "hostile" {
    let rounds = CommandLine.arguments.firstIndex(of: "--rounds").flatMap { index in
        CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) }
    } ?? 20
    exit(HostileRounds.run(rounds: max(1, rounds)) ? 0 : 1)
}

/// Starts the server child on `port` (0: any) and returns it with the port it bound.
func startServer(port: UInt16) -> (Process, UInt16)? {
    guard let (child, line) = ChildProcess.start(mode: "serve", arguments: ["--port", String(port)]) else { return nil }
    guard let bound = UInt16(line) else {
        print("the server process said: \(line)")
        child.terminate()
        return nil
    }
    return (child, bound)
}

let options = Options(arguments: CommandLine.arguments)
guard var (serverProcess, port) = startServer(port: 0),
      let baseURL = URL(string: "http://127.0.0.1:\(port)") else { exit(1) }

let client = HTTPClient(
    baseURL: baseURL,
    configuration: .init(timeout: 2, reachabilityProbeInterval: options.probe, reachabilityTimeout: 0.5)
)
guard let reachability = client.reachability else {
    print("no reachability for \(baseURL)")
    exit(1)
}
let ledger = Ledger()
let pollScheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "soak.poll")

let pollingEnabled = Atomic<Bool>(true)
let polling = Observable<Int>.interval(.seconds(options.poll), scheduler: pollScheduler)
    .filter { _ in pollingEnabled.load(ordering: .relaxed) }
    .flatMap { _ -> Observable<Void> in
        ledger.didStart()
        return (client.rx.requestObject(path: "/status") as Single<Status>)
            .asObservable()
            .retry(10, delay: .constant(time: 30),
                   didBecomeReachable: reachability.didBecomeReachable,
                   shouldRetry: { $0.isTransient })
            .map { _ in ledger.didSucceed(at: Date()) }
            .catch { error in
                ledger.didFail(error)
                return .empty()
            }
    }
    .subscribe()

print("soak: \(Int(options.duration)) s, poll every \(options.poll) s, server down \(options.downtime) s in every \(options.cycle) s, probe every \(options.probe) s, port \(port)")
let start = Date()
var samples: [(t: TimeInterval, rss: Int, fds: Int)] = []
var nextOutage = options.cycle - options.downtime
// No outage in the last cycle: every outage gets time to be recovered before the run ends.
let lastOutageStart = options.duration - options.cycle
while Date().timeIntervalSince(start) < options.duration {
    Thread.sleep(forTimeInterval: 1)
    let elapsed = Date().timeIntervalSince(start)
    samples.append((elapsed, residentSetKiB(), openFileDescriptors()))
    if elapsed >= nextOutage && elapsed <= lastOutageStart {
        serverProcess.terminate()
        serverProcess.waitUntilExit()
        ledger.serverWentDown(at: Date())
        Thread.sleep(forTimeInterval: options.downtime)
        if let (restarted, _) = startServer(port: port) {
            serverProcess = restarted
        } else {
            print("restart on port \(port) failed")
        }
        ledger.serverCameBack(at: Date())
        nextOutage += options.cycle
    }
    if samples.count % 60 == 0 {
        let s = ledger.snapshot
        // Live RxCore objects (debug builds count them): flat means the growth is not ours.
        print(String(format: "  t=%4.0fs rss=%6d KiB fds=%3d requests=%d ok=%d failed=%d rx-resources=%d",
                     elapsed, samples.last?.rss ?? -1, samples.last?.fds ?? -1,
                     s.started, s.succeeded, s.failures.values.reduce(0, +) + s.other, Resources.total))
        // Progress must show when the output goes to a file, which is block-buffered.
        fflush(nil)
    }
}
// Stop polling: requests in flight finish (or fail) by themselves; wait for them, then dispose.
pollingEnabled.store(false, ordering: .relaxed)
let drainDeadline = Date().addingTimeInterval(10)
while Date() < drainDeadline {
    let s = ledger.snapshot
    if s.started == s.succeeded + s.failures.values.reduce(0, +) + s.other { break }
    Thread.sleep(forTimeInterval: 0.05)
}
polling.dispose()

let summary = ledger.snapshot
/// Over ten seconds: the median RSS, and the floor of open descriptors — sockets in flight raise
/// the peaks, a leak raises the floor.
func median(_ window: ArraySlice<(t: TimeInterval, rss: Int, fds: Int)>) -> (t: TimeInterval, rss: Int, fds: Int)? {
    guard !window.isEmpty else { return nil }
    let rss = window.map(\.rss).sorted()[window.count / 2]
    let fds = window.map(\.fds).min() ?? -1
    return (window.last?.t ?? 0, rss, fds)
}
let firstMinuteIndex = samples.firstIndex { $0.t >= 60 } ?? 0
let afterFirstMinute = median(samples[firstMinuteIndex..<min(samples.count, firstMinuteIndex + 10)])
let last = median(samples.suffix(10))
let failed = summary.failures.values.reduce(0, +) + summary.other
let disposedWhilePending = summary.started - summary.succeeded - failed
let rssGrowth = afterFirstMinute.flatMap { first in last.map { Double($0.rss - first.rss) / Double(max(first.rss, 1)) * 100 } } ?? 0
let sortedRecoveries = summary.recoveries.sorted()
func percentile(_ p: Double) -> TimeInterval {
    guard !sortedRecoveries.isEmpty else { return .nan }
    return sortedRecoveries[min(sortedRecoveries.count - 1, Int(Double(sortedRecoveries.count - 1) * p))]
}
print("""
soak summary
  duration             \(Int(Date().timeIntervalSince(start))) s
  requests             \(summary.started) started, \(summary.succeeded) succeeded, \(failed) failed with a typed error\(summary.failures.isEmpty ? "" : " \(summary.failures.map { "\($0.key)=\($0.value)" }.sorted())"), \(summary.other) failed untyped, \(disposedWhilePending) lost (neither)
  outages              \(summary.recoveries.count + summary.unrecovered) (\(summary.unrecovered) not recovered)
  recovery after up    median \(String(format: "%.3f", percentile(0.5))) s, p90 \(String(format: "%.3f", percentile(0.9))) s, max \(String(format: "%.3f", sortedRecoveries.last ?? .nan)) s (probe interval \(options.probe) s)
  RSS (10 s medians)   \(afterFirstMinute?.rss ?? -1) KiB after the first minute, \(last?.rss ?? -1) KiB at the end (\(String(format: "%+.1f", rssGrowth))%)
  open fds (floors)    \(afterFirstMinute?.fds ?? -1) after the first minute, \(last?.fds ?? -1) at the end (min \(samples.map(\.fds).min() ?? -1), max \(samples.map(\.fds).max() ?? -1))
""")
let goalsMet = rssGrowth < 5 && (last?.fds ?? 0) <= (afterFirstMinute?.fds ?? 0)
    && summary.unrecovered == 0 && (sortedRecoveries.last ?? 0) <= options.probe + 0.1 && summary.other == 0
    && disposedWhilePending == 0
print("  goals                \(goalsMet ? "met" : "NOT met") (RSS growth < 5%, no fd growth, every outage recovered within one probe interval, every request succeeded or failed with a typed error)")
serverProcess.terminate()
