import Foundation
import Synchronization
import RxCore
@_spi(Fuzzing) import RxHTTP
import RxTesting

// Streaming throughput and memory, the server in a child process (`stream-bench serve`) so the CPU
// measured is the client's alone:
//  1. Server-Sent Events through `client.rx.serverSentEvents` against a raw parse of the same bytes
//     by the same parser: events per second and CPU per event.
//  2. RSS while a 1 GiB body passes through `client.rx.stream` to a reader that keeps up.
//
//   swift run -c release --package-path Benchmarks stream-bench [events=500000] [megabytes=1024]

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let eventCount = arguments.first ?? 500_000
let megabytes = arguments.dropFirst().first ?? 1_024

/// One event of about 100 bytes, as the server writes it.
let oneEvent = Data("id: 123456\nevent: tick\ndata: {\"symbol\":\"RXNK\",\"price\":101.25,\"volume\":4200}\n\n".utf8)

func serve() -> Never {
    let server = LoopbackHTTPServer(requestLogLimit: 0)
    var batch = Data()
    for _ in 0..<512 { batch.append(oneEvent) }
    server.route(.get, "/events", .eventStream([.repeatWrite(batch, times: max(1, eventCount / 512))]))
    server.route(.get, "/bulk", .stream([.repeatWrite(Data(count: 1 << 20), times: megabytes)]))
    do { try server.start() } catch { exit(1) }
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    while readLine() != nil {}
    server.stop()
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "serve" { serve() }

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func residentKiB() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

/// Runs the measurements. A function, not top-level code: closures written at the top level of
/// main.swift are isolated to the main actor, and these run on the client's threads.
func runBenchmarks() {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).absoluteURL
    process.arguments = ["serve"] + CommandLine.arguments.dropFirst().map { $0 }
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    do { try process.run() } catch { print("could not start the server"); exit(1) }
    var line = Data()
    while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { exit(1) }
        line.append(chunk)
    }
    guard let port = UInt16(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
          let baseURL = URL(string: "http://127.0.0.1:\(port)") else { exit(1) }
    let client = HTTPClient(baseURL: baseURL, configuration: .init(timeout: 10))
    let sent = (eventCount / 512) * 512

    // 1. Events through the client.
    let received = Mutex(0)
    let done = DispatchSemaphore(value: 0)
    var cpuStart = cpuSeconds()
    var wallStart = Date()
    let subscription = client.rx.serverSentEvents(path: "/events", reconnect: .never).subscribe(
        onNext: { _ in received.withLock { $0 += 1 } },
        onError: { print("stream failed: \($0)"); done.signal() },
        onCompleted: { done.signal() }
    )
    done.wait()
    subscription.dispose()
    let clientCPU = cpuSeconds() - cpuStart
    let clientWall = Date().timeIntervalSince(wallStart)
    let clientEvents = received.withLock { $0 }

    // The same bytes through the parser alone.
    var bytes = Data()
    for _ in 0..<512 { bytes.append(oneEvent) }
    cpuStart = cpuSeconds()
    wallStart = Date()
    let parsed = StreamParsing.countEvents(repeating: bytes, times: sent / 512)
    let rawCPU = cpuSeconds() - cpuStart

    print("Server-Sent Events, \(sent) events of \(oneEvent.count) bytes (\(sent * oneEvent.count / 1_048_576) MiB):")
    print(String(format: "  client.rx.serverSentEvents  %9.0f events/s  %6.2f µs CPU per event  (%d received, %.2f s wall)",
                 Double(clientEvents) / clientWall, clientCPU / Double(max(clientEvents, 1)) * 1e6, clientEvents, clientWall))
    print(String(format: "  raw parse, same parser      %9.0f events/s  %6.2f µs CPU per event  (%d parsed)",
                 Double(parsed) / max(rawCPU, 1e-9), rawCPU / Double(max(parsed, 1)) * 1e6, parsed))

    // 2. A big body through a reader that keeps up.
    let rssBefore = residentKiB()
    let peak = Mutex(rssBefore)
    let bytesIn = Mutex(0)
    struct Bulk: Request { typealias Response = Data; var path: String { "/bulk" } }
    wallStart = Date()
    let bulk = client.rx.stream(Bulk()).subscribe(
        onNext: { chunk in
            let total = bytesIn.withLock { $0 += chunk.count; return $0 }
            if total % (32 << 20) < chunk.count {
                let now = residentKiB()
                peak.withLock { $0 = max($0, now) }
            }
        },
        onError: { print("bulk failed: \($0)"); done.signal() },
        onCompleted: { done.signal() }
    )
    done.wait()
    bulk.dispose()
    let bulkWall = Date().timeIntervalSince(wallStart)
    print(String(format: "\(megabytes) MiB through client.rx.stream: %.0f MiB/s; RSS %d KiB before, peak %d KiB (%+d KiB)",
                 Double(bytesIn.withLock { $0 }) / 1_048_576 / bulkWall, rssBefore, peak.withLock { $0 }, peak.withLock { $0 } - rssBefore))
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
}

runBenchmarks()
