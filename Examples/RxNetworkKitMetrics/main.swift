import Foundation
import RxNetworkKit
import RxTesting

// Metrics from `client.events`, with OpenTelemetry's HTTP client semantic conventions and no
// dependency: a histogram `http.client.request.duration` (seconds) per method, server, status,
// error type and `http.request.resend_count`, fed by the `.completed` event of every call.
//
//   swift run RxNetworkKitMetrics [requests=200]

/// `http.client.request.duration`: explicit-bucket histograms keyed by their attributes.
final class RequestDurationHistogram: @unchecked Sendable {
    // @unchecked Sendable: `series` is only touched under `lock`.
    /// OpenTelemetry's advised boundaries for this instrument, in seconds.
    static let boundaries: [Double] = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10]

    struct Series {
        var counts = [Int](repeating: 0, count: RequestDurationHistogram.boundaries.count + 1)
        var count = 0
        var sum = 0.0
    }

    private let lock = NSLock()
    private var series: [[String: String]: Series] = [:]

    func record(_ seconds: Double, attributes: [String: String]) {
        let bucket = Self.boundaries.firstIndex { seconds <= $0 } ?? Self.boundaries.count
        lock.withLock {
            series[attributes, default: Series()].counts[bucket] += 1
            series[attributes, default: Series()].count += 1
            series[attributes, default: Series()].sum += seconds
        }
    }

    func report() -> String {
        lock.withLock {
            series.sorted { $0.key.description < $1.key.description }.map { attributes, series in
                let labels = attributes.sorted { $0.key < $1.key }.map { "\($0.key)=\"\($0.value)\"" }.joined(separator: ",")
                let mean = series.count == 0 ? 0 : series.sum / Double(series.count)
                return "http.client.request.duration{\(labels)} count=\(series.count) sum=\(String(format: "%.4f", series.sum))s mean=\(String(format: "%.1f", mean * 1000))ms"
            }.joined(separator: "\n")
        }
    }
}

let total = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200
let server = LoopbackHTTPServer()
do { try server.start() } catch { print("could not start the server: \(error)"); exit(1) }
let flaky = LockedCounter()
server.route(.get, "/items/*") { _ in
    // Every fifth request fails once with 503, so some calls need a second attempt.
    flaky.next() % 5 == 0 ? .status(503) : .json(#"{"id":1,"name":"item"}"#)
}
server.route(.get, "/missing", .status(404))

let client = HTTPClient(baseURL: server.baseURL, configuration: .init(
    timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.01))))
let histogram = RequestDurationHistogram()
let metrics = client.events.subscribe(onNext: { event in
    guard case .completed(let outcome, let duration, let attempts) = event.kind else { return }
    var attributes = [
        "http.request.method": event.method?.rawValue ?? "_OTHER",
        "server.address": server.baseURL.host ?? "",
        "http.request.resend_count": String(max(0, attempts - 1)),
    ]
    switch outcome {
    case .success(let status):
        attributes["http.response.status_code"] = String(status)
    case .failure(let code, let status, _):
        attributes["error.type"] = status.map(String.init) ?? code.rawValue
        if let status { attributes["http.response.status_code"] = String(status) }
    }
    histogram.record(duration, attributes: attributes)
})

struct Item: Decodable { let id: Int; let name: String }
let done = DispatchSemaphore(value: 0)
for index in 0..<total {
    let path = index % 25 == 24 ? "/missing" : "/items/\(index)"
    _ = (client.rx.requestObject(path: path) as Single<Item>).subscribe(onSuccess: { _ in done.signal() }, onFailure: { _ in done.signal() })
}
for _ in 0..<total { done.wait() }
metrics.dispose()
print("\(total) calls; metrics from client.events:")
print(histogram.report())
server.stop()

/// A counter shared by the server's connection threads.
final class LockedCounter: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0
    func next() -> Int { lock.withLock { value += 1; return value } }
}
