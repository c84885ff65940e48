// Large bodies (issue 37): one download or upload through `client.rx.download(_:to:)` /
// `client.rx.upload(_:fromFile:)`, timed, with the process's peak resident memory before and after.
// `Benchmarks/transfer-bench.sh` runs it against nginx beside `curl` and a proxy that cuts
// connections, and prints the table of Benchmarks/README.md ("Large bodies").
//
//   transfer-bench download <url> <destination> <urlsession|ahc>
//   transfer-bench upload <url> <file> <urlsession|ahc>
import Foundation
import RxCore
import RxHTTP
import RxNetworkKitAsyncHTTPClient
import RxTesting

/// The `VmHWM` (peak resident set) of this process, in KiB.
func peakResidentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }
    return -1
}

struct Download: Request {
    typealias Response = Data
    let path: String
}

struct Upload: Request {
    typealias Response = Data
    let path: String
    var method: HTTPMethod { .put }
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let url = URL(string: arguments[2]), let base = URL(string: "/", relativeTo: url)?.absoluteURL else {
    FileHandle.standardError.write(Data("usage: transfer-bench download|upload <url> <file> <urlsession|ahc>\n".utf8))
    exit(2)
}
let transport: any HTTPTransport = arguments[4] == "ahc" ? AsyncHTTPClientTransport() : URLSessionTransport()
let client = HTTPClient(
    baseURL: base,
    configuration: .init(timeout: 600, retryPolicy: RetryPolicy(maxAttempts: 5, delay: .constant(time: 0.05))),
    transport: transport
)
let file = URL(fileURLWithPath: arguments[3])
let before = peakResidentKiB()
let started = DispatchTime.now().uptimeNanoseconds
let transfer = arguments[1] == "upload"
    ? client.rx.upload(Upload(path: url.path), fromFile: file)
    : client.rx.download(Download(path: url.path), to: file)
var events = 0
var last: TransferProgress?
do {
    for value in try transfer.toBlocking(timeout: 600).toArray() {
        events += 1
        last = value
    }
} catch {
    print("error: \(error)")
    exit(1)
}
let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
let after = peakResidentKiB()
let bytes = last?.bytes ?? 0
print(String(
    format: "%@ %@: %lld bytes in %.3f s = %.1f MiB/s; %d progress events; peak RSS %d KiB before, %d after (+%d KiB)",
    arguments[1], arguments[4], bytes, seconds, Double(bytes) / seconds / 1_048_576, events, before, after, after - before
))
_ = try? client.shutdown(gracePeriod: 1).andThen(Single.just(())).toBlocking(timeout: 5).single()
