import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import RxCore
import RxHTTP
import RxNetworkKitAsyncHTTPClient
import RxTesting

// WebSocket messages per second (issue 23): a raw SwiftNIO WebSocket client against
// `client.webSocket(path:).messages` over AsyncHTTPClientTransport, in the same run, alternating
// rounds. The server is a SwiftNIO WebSocket server in a child process (`ws-bench serve`) that, per
// connection, writes N pre-encoded frames as fast as the socket takes them and then a close frame
// with 1000; so the CPU measured here (getrusage of this process) is the client's alone, and the
// server's is read from /proc to show it is not the limit. A round that fails is run again.
//
//   swift run -j 1 -c release --package-path Benchmarks ws-bench [rounds]
//   ws-bench only raw|rx|rx-inline text|binary [count]
//                                               (one client, one connection, for profilers;
//                                                WS_BENCH_PORT=<port> uses a running `ws-bench serve`)
//   ws-bench serve                              (prints its port; serves until stdin closes)
//   WS_BENCH_SERVER=loopback ws-bench only …    (text from RxTesting's LoopbackHTTPServer instead)

// MARK: - Workloads

struct Workload: Sendable {
    let name: String
    let isBinary: Bool
    let count: Int
    let size: Int

    /// The path the server reads the workload from: `/text/200000/32`.
    var path: String { "/\(isBinary ? "binary" : "text")/\(count)/\(size)" }

    static let text = Workload(name: "text, 32 B", isBinary: false, count: 1_000_000, size: 32)
    static let binary = Workload(name: "binary, 4 KiB", isBinary: true, count: 100_000, size: 4_096)

    static func parse(path: String) -> Workload? {
        let parts = path.split(separator: "/")
        guard parts.count == 3, parts[0] == "text" || parts[0] == "binary",
              let count = Int(parts[1]), let size = Int(parts[2]), count >= 0, (0...65_535).contains(size)
        else { return nil }
        return Workload(name: String(parts[0]), isBinary: parts[0] == "binary", count: count, size: size)
    }
}

// MARK: - Server process

/// Writes the workload's frames, already encoded, straight to the socket (it sits first in the
/// pipeline, before NIO's frame encoder), as fast as the channel stays writable; then a close frame
/// with 1000, and closes the connection when the client answers or drops it (or after 5 s).
final class BlastHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let total: Int
    private let chunk: ByteBuffer
    private let framesPerChunk: Int
    private let frameBytes: [UInt8]
    private var sent = 0
    private var closeSent = false
    private var isBlasting = false

    init(_ workload: Workload) {
        var frame: [UInt8] = [workload.isBinary ? 0x82 : 0x81]
        if workload.size < 126 {
            frame.append(UInt8(workload.size))
        } else {
            frame += [126, UInt8(workload.size >> 8), UInt8(workload.size & 0xFF)]
        }
        let letters = Array("abcdefghijklmnopqrstuvwxyz012345".utf8)
        frame += (0..<workload.size).map { letters[$0 % letters.count] }
        frameBytes = frame
        framesPerChunk = max(1, 65_536 / frame.count)
        var buffer = ByteBufferAllocator().buffer(capacity: framesPerChunk * frame.count)
        for _ in 0..<framesPerChunk { buffer.writeBytes(frame) }
        chunk = buffer
        total = workload.count
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { blast(context: context) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if sent < total || !closeSent {
            FileHandle.standardError.write(Data("ws-bench serve: the client left after \(sent) of \(total) messages\n".utf8))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        FileHandle.standardError.write(Data("ws-bench serve: \(error)\n".utf8))
        context.fireErrorCaught(error)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        blast(context: context)
        context.fireChannelWritabilityChanged()
    }

    /// Writes while the channel is writable. A write or flush may fire `channelWritabilityChanged`
    /// from inside this loop (false past the high water mark, true again once the flush drained
    /// it): that nested call returns at once and the loop looks at the writability again itself,
    /// so that no chunk is written twice and none is forgotten.
    private func blast(context: ChannelHandlerContext) {
        guard !isBlasting else { return }
        isBlasting = true
        defer { isBlasting = false }
        repeat {
            while sent < total && context.channel.isWritable {
                let frames = min(framesPerChunk, total - sent)
                let buffer = frames == framesPerChunk ? chunk : chunk.getSlice(at: chunk.readerIndex, length: frames * frameBytes.count)!
                sent += frames
                context.write(wrapOutboundOut(buffer), promise: nil)
            }
            if sent == total && !closeSent {
                closeSent = true
                // Close 1000, no reason.
                context.write(wrapOutboundOut(ByteBuffer(bytes: [0x88, 0x02, 0x03, 0xE8])), promise: nil)
                context.eventLoop.scheduleTask(in: .seconds(5)) { [channel = context.channel] in
                    channel.close(promise: nil)
                }
            }
            context.flush()
        } while sent < total && context.channel.isWritable
    }
}

/// After the frame decoder: closes the connection when the client's close frame arrives.
final class ServerFrameHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if unwrapInboundIn(data).opcode == .connectionClose {
            context.close(promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        FileHandle.standardError.write(Data("ws-bench serve: \(error)\n".utf8))
        context.close(promise: nil)
    }
}

func serve() -> Never {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let bootstrap = ServerBootstrap(group: group)
        .serverChannelOption(.backlog, value: 64)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 << 10, high: 1 << 20))
        .childChannelInitializer { channel in
            let upgrader = NIOWebSocketServerUpgrader(
                maxFrameSize: 1 << 16,
                shouldUpgrade: { channel, head in
                    channel.eventLoop.makeSucceededFuture(Workload.parse(path: head.uri) == nil ? nil : NIOHTTP1.HTTPHeaders())
                },
                upgradePipelineHandler: { channel, head in
                    channel.eventLoop.makeCompletedFuture {
                        let workload = Workload.parse(path: head.uri)!
                        try channel.pipeline.syncOperations.addHandler(ServerFrameHandler())
                        try channel.pipeline.syncOperations.addHandler(BlastHandler(workload), position: .first)
                    }
                }
            )
            return channel.pipeline.configureHTTPServerPipeline(withServerUpgrade: (upgraders: [upgrader], completionHandler: { _ in }))
        }
    let channel: any Channel
    do {
        channel = try bootstrap.bind(host: "127.0.0.1", port: 0).wait()
    } catch {
        FileHandle.standardError.write(Data("ws-bench serve: \(error)\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("\(channel.localAddress?.port ?? 0)\n".utf8))
    // Serve until the parent closes our stdin (or dies).
    while readLine() != nil {}
    exit(0)
}

/// The same text workload from RxTesting's `LoopbackHTTPServer` (a thread per connection, one
/// `write` per frame): `.sendMany` sends `"\(prefix)\(i)"`, 27 to 32 bytes here. For comparison only
/// (`WS_BENCH_SERVER=loopback`): it cannot feed the clients as fast as they read.
func serveLoopback() -> Never {
    let server = LoopbackHTTPServer(requestLogLimit: 0)
    server.route(.get, "/text/*") { request in
        guard let workload = Workload.parse(path: request.path) else { return .status(404) }
        return .webSocket([.sendMany(count: workload.count, prefix: "abcdefghijklmnopqrstuvwxy:"), .close(code: 1000, reason: "")])
    }
    do {
        try server.start()
    } catch {
        FileHandle.standardError.write(Data("ws-bench serve-loopback: \(error)\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    while readLine() != nil {}
    server.stop()
    exit(0)
}

switch CommandLine.arguments.dropFirst().first {
case "serve": serve()
case "serve-loopback": serveLoopback()
default: break
}

// MARK: - Measurement

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

func nowSeconds() -> Double {
    Double(DispatchTime.now().uptimeNanoseconds) / 1e9
}

/// A wall-clock and CPU-time reading.
struct Mark: Sendable {
    let wall: Double
    let cpu: Double

    static func now() -> Mark { Mark(wall: nowSeconds(), cpu: cpuSeconds()) }
}

struct RoundResult: Sendable {
    let messages: Int
    let seconds: Double
    let cpu: Double
    let failure: String?
    /// The server process's CPU seconds over the round, when it is our child.
    var serverCPU: Double? = nil

    var messagesPerSecond: Double { Double(messages) / seconds }
    var cpuPerMessage: Double { cpu / Double(max(1, messages)) }
}

// MARK: - Raw SwiftNIO client

/// Counts data frames and stops the clock at the close frame; answers nothing.
final class CountingHandler: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame

    private let done: EventLoopPromise<(Int, Mark)>
    private var count = 0
    private var finished = false

    init(done: EventLoopPromise<(Int, Mark)>) {
        self.done = done
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text, .binary, .continuation:
            if frame.fin { count += 1 }
        case .connectionClose:
            guard !finished else { return }
            finished = true
            done.succeed((count, .now()))
            context.close(promise: nil)
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !finished {
            finished = true
            done.fail(ChannelError.eof)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !finished {
            finished = true
            done.fail(error)
        }
        context.close(promise: nil)
    }
}

func runRaw(_ workload: Workload, port: Int) -> RoundResult {
    let group = MultiThreadedEventLoopGroup.singleton
    let promise = group.next().makePromise(of: (Int, Mark).self)
    let path = workload.path
    let start = Mark.now()
    var headers = NIOHTTP1.HTTPHeaders()   // RxNetworkKit has an HTTPHeaders of its own
    headers.add(name: "Host", value: "127.0.0.1:\(port)")
    headers.add(name: "Content-Length", value: "0")
    let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)
    let bootstrap = ClientBootstrap(group: group)
        .channelOption(.socketOption(.tcp_nodelay), value: 1)
        .channelInitializer { channel in
            let upgrader = NIOTypedWebSocketClientUpgrader<Bool>(
                maxFrameSize: 1 << 20, enableAutomaticErrorHandling: false,
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(CountingHandler(done: promise))
                        return true
                    }
                }
            )
            var configuration = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: .init(
                upgradeRequestHead: head, upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(false) }
            ))
            // The frames the server sends right behind its 101 (often in the same read) go on to the
            // frame decoder.
            configuration.leftOverBytesStrategy = .forwardBytes
            return channel.eventLoop.makeCompletedFuture {
                let upgraded = try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: configuration)
                upgraded.whenSuccess { if !$0 { promise.fail(ChannelError.inappropriateOperationForState) } }
            }
        }
    bootstrap.connect(host: "127.0.0.1", port: port).whenFailure { promise.fail($0) }
    do {
        let (count, end) = try promise.futureResult.wait()
        return RoundResult(messages: count, seconds: end.wall - start.wall, cpu: end.cpu - start.cpu,
                           failure: count == workload.count ? nil : "\(count) of \(workload.count) messages")
    } catch {
        let end = Mark.now()
        return RoundResult(messages: 0, seconds: end.wall - start.wall, cpu: end.cpu - start.cpu, failure: "\(error)")
    }
}

// MARK: - RxHTTP client

/// The count of one round; touched by one thread at a time (the client's serial callback queue, or
/// the connection's event loop with `deliversOnConnectionThread`), and read after the semaphore
/// that the completion signals (which orders it).
final class Tally: @unchecked Sendable {
    var count = 0
    var end: Mark?
    var failure: String?
}

/// One round through `messages`; `inline`: delivered on the connection's thread
/// (`WebSocketOptions.deliversOnConnectionThread`) instead of after the hop to the callback queue.
func runRx(_ workload: Workload, client: RxHTTP.HTTPClient, inline: Bool = false) -> RoundResult {
    let tally = Tally()
    let finished = DispatchSemaphore(value: 0)
    let options = WebSocketOptions(pingInterval: .infinity, deliversOnConnectionThread: inline)
    let socket = client.webSocket(path: workload.path, reconnect: .never, options: options)
    let start = Mark.now()
    let subscription = socket.messages.subscribe(
        onNext: { _ in tally.count += 1 },
        onError: { error in
            tally.end = .now()
            tally.failure = "\(error)"
            finished.signal()
        },
        onCompleted: {
            tally.end = .now()
            finished.signal()
        }
    )
    finished.wait()
    subscription.dispose()
    let end = tally.end!
    let failure = tally.failure ?? (tally.count == workload.count ? nil : "\(tally.count) of \(workload.count) messages")
    return RoundResult(messages: tally.count, seconds: end.wall - start.wall, cpu: end.cpu - start.cpu, failure: failure)
}

// MARK: - Main

func startServerProcess() -> (Process, Pipe, Int)? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL
    process.arguments = [ProcessInfo.processInfo.environment["WS_BENCH_SERVER"] == "loopback" ? "serve-loopback" : "serve"]
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
    guard let text = String(data: line, encoding: .utf8), let port = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        return nil
    }
    return (process, input, port)
}

/// User + system CPU seconds of process `pid` (`/proc/<pid>/stat`, in clock ticks of 10 ms).
func processCPUSeconds(_ pid: Int32) -> Double? {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
          let end = stat.lastIndex(of: ")") else { return nil }
    // Fields after the command name: state is field 3, utime field 14, stime field 15.
    let fields = stat[stat.index(after: end)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
}

func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func grouped(_ value: Double) -> String {
    let formatter = NumberFormatter()
    formatter.numberStyle = .decimal
    formatter.maximumFractionDigits = 0
    return formatter.string(from: NSNumber(value: value.rounded())) ?? "\(Int(value))"
}

func fixed(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}

var port: Int
var server: (Process, Pipe)?
if let text = ProcessInfo.processInfo.environment["WS_BENCH_PORT"], let given = Int(text) {
    port = given
} else {
    guard let (process, input, serverPort) = startServerProcess() else {
        print("ws-bench: the server process did not start")
        exit(1)
    }
    server = (process, input)
    port = serverPort
}

@MainActor
func stopServer() {
    guard let (process, input) = server else { return }
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
}

let rxClient = RxHTTP.HTTPClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, transport: AsyncHTTPClientTransport())

// `ws-bench only raw|rx|rx-inline text|binary [count]`: one client, one connection, for a profiler.
if CommandLine.arguments.dropFirst().first == "only" {
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    guard arguments.count >= 2, ["raw", "rx", "rx-inline"].contains(arguments[0]), ["text", "binary"].contains(arguments[1]) else {
        print("usage: ws-bench only raw|rx|rx-inline text|binary [count]")
        stopServer()
        exit(1)
    }
    let base = arguments[1] == "text" ? Workload.text : Workload.binary
    let count = arguments.count > 2 ? Int(arguments[2]) ?? base.count : base.count
    let workload = Workload(name: base.name, isBinary: base.isBinary, count: count, size: base.size)
    let result = arguments[0] == "raw" ? runRaw(workload, port: port) : runRx(workload, client: rxClient, inline: arguments[0] == "rx-inline")
    print("\(arguments[0]) \(workload.path): \(result.messages) messages in \(fixed(result.seconds, 3)) s, "
        + "\(grouped(result.messagesPerSecond)) msg/s, \(fixed(result.cpuPerMessage * 1e6, 3)) µs CPU per message"
        + (result.failure.map { " — FAILED: \($0)" } ?? ""))
    stopServer()
    exit(result.failure == nil ? 0 : 1)
}

let rounds = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 5
let loadBefore = loadAverage()
print("ws-bench: server pid \(server.map { "\($0.0.processIdentifier)" } ?? "external") on port \(port), \(rounds) rounds per client, load average \(loadBefore)")

struct Row {
    let workload: Workload
    let raw: [RoundResult]
    let rx: [RoundResult]
    let rxInline: [RoundResult]
}

var rows: [Row] = []
/// Rounds that failed and were run again, by client: what a failure was is printed as it happens.
var failures = ["raw": 0, "RxHTTP": 0, "RxHTTP inline": 0]
var failed = false

/// Runs one round; a round that fails (a connection lost, a count off) is printed and run again,
/// at most 5 times, so that the medians compare whole rounds.
@MainActor
func measuredRound(_ label: String, _ client: String, _ run: () -> RoundResult) -> RoundResult {
    let serverPID = server?.0.processIdentifier
    func runMeasuringServer() -> RoundResult {
        let before = serverPID.flatMap(processCPUSeconds)
        var result = run()
        if let before, let after = serverPID.flatMap(processCPUSeconds) { result.serverCPU = after - before }
        return result
    }
    var result = runMeasuringServer()
    var attempts = 1
    while let failure = result.failure {
        print("  \(label) \(client): FAILED (\(failure)), run again")
        failures[client, default: 0] += 1
        guard attempts < 5 else {
            failed = true
            break
        }
        attempts += 1
        result = runMeasuringServer()
    }
    print("  \(label) \(client): \(grouped(result.messagesPerSecond)) msg/s, "
        + "\(fixed(result.cpuPerMessage * 1e6, 3)) µs CPU/msg, \(fixed(result.seconds, 3)) s"
        + (result.serverCPU.map { ", server CPU \(Int(($0 / result.seconds * 100).rounded())) %" } ?? ""))
    return result
}

for workload in [Workload.text, Workload.binary] {
    // One warm-up of each (connection pool, first-use allocations, page faults), not counted.
    _ = runRaw(workload, port: port)
    _ = runRx(workload, client: rxClient)
    _ = runRx(workload, client: rxClient, inline: true)
    var raw: [RoundResult] = []
    var rx: [RoundResult] = []
    var rxInline: [RoundResult] = []
    for round in 1...rounds {
        raw.append(measuredRound("\(workload.name) round \(round)", "raw") { runRaw(workload, port: port) })
        rx.append(measuredRound("\(workload.name) round \(round)", "RxHTTP") { runRx(workload, client: rxClient) })
        rxInline.append(measuredRound("\(workload.name) round \(round)", "RxHTTP inline") { runRx(workload, client: rxClient, inline: true) })
    }
    rows.append(Row(workload: workload, raw: raw, rx: rx, rxInline: rxInline))
}
print("load average after: \(loadAverage())")
print("")
print("| workload | client | messages/s | CPU µs/msg | server busy | ratio messages/s | ratio CPU/msg | goal |")
print("|---|---|--:|--:|--:|--:|--:|---|")
func serverBusy(_ results: [RoundResult]) -> String {
    let shares = results.compactMap { result in result.serverCPU.map { $0 / result.seconds } }
    return shares.isEmpty ? "–" : "\(Int((median(shares) * 100).rounded())) %"
}
for row in rows {
    let rawRate = median(row.raw.map(\.messagesPerSecond))
    let rawCPU = median(row.raw.map(\.cpuPerMessage)) * 1e6
    let label = "\(row.workload.count.formatted()) × \(row.workload.name)"
    print("| \(label) | raw SwiftNIO | \(grouped(rawRate)) | \(fixed(rawCPU, 3)) | \(serverBusy(row.raw)) | | | |")
    for (client, results) in [("RxHTTP `messages`", row.rx), ("RxHTTP `messages`, `deliversOnConnectionThread`", row.rxInline)] {
        let rate = median(results.map(\.messagesPerSecond))
        let cpu = median(results.map(\.cpuPerMessage)) * 1e6
        print("| \(label) | \(client) | \(grouped(rate)) | \(fixed(cpu, 3)) | \(serverBusy(results)) "
            + "| **\(fixed(rate / rawRate, 2))** | \(fixed(cpu / rawCPU, 2)) | ≥ 0.9 \(rate / rawRate >= 0.9 ? "✅" : "❌") |")
    }
}
print("")
print("Medians of \(rounds) rounds; server busy: the server process's CPU time over the round's wall time.")
print("")
print("rounds run again after a failure: raw \(failures["raw"] ?? 0), RxHTTP \(failures["RxHTTP"] ?? 0), RxHTTP inline \(failures["RxHTTP inline"] ?? 0)")
rxClient.shutdown()
stopServer()
exit(failed ? 1 : 0)
