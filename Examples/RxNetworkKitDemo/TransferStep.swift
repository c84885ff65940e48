import Foundation
import RxNetworkKit
import RxTesting
import Synchronization

// Step 20: large bodies never sit in memory. A 48 MiB export comes down through a link that is cut
// twice mid-body; the download resumes with Range/If-Range and lands whole, and the server counts
// what it sent. Then a 24 MiB backup goes up, streamed from its file.

private struct Export: Request {
    typealias Response = Data
    var path: String { "/exports/nightly.bin" }
}

private struct Backup: Request {
    typealias Response = Data
    var path: String { "/backups/today.bin" }
    var method: HTTPMethod { .put }
}

/// Runs the step; returns its lines.
func transferStep(server: LoopbackHTTPServer) -> [String] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-demo-transfer-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let size = 48 << 20
    var generator = SystemRandomNumberGenerator()
    let export = Data((0..<size / 8).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } })
    let connections = Mutex(0)
    let served = Mutex(0)
    server.route(.get, "/exports/nightly.bin") { request in
        let number = connections.withLock { $0 += 1; return $0 }
        let answer = LoopbackHTTPResponse.ranged(export, for: request, etag: "\"nightly-2026-11-29\"")
        // The first two connections drop a third of the way through what they send.
        let cut = number <= 2 ? answer.body.count / 3 : answer.body.count
        served.withLock { $0 += cut }
        return number <= 2 ? answer.closingConnection(afterBodyBytes: cut) : answer
    }
    let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 10, retryPolicy: RetryPolicy(maxAttempts: 4, delay: .constant(time: 0.01))))
    let destination = directory.appendingPathComponent("nightly.bin")
    let progressEvents = Mutex(0)
    let (downloadError, downloadTime) = timed { () -> (any Error)? in
        do {
            _ = try client.rx.download(Export(), to: destination).do(onNext: { _ in progressEvents.withLock { $0 += 1 } })
                .toBlocking(timeout: 30).toArray()
            return nil
        } catch {
            return error
        }
    }
    var lines: [String] = []
    let landed = (try? Data(contentsOf: destination)) == export
    let sent = served.withLock { $0 }
    lines.append(
        "download: \(size >> 20) MiB in \(ms(downloadTime)) over \(connections.withLock { $0 }) connections (cut twice), "
            + (downloadError.map { "failed: \($0)" } ?? "whole: \(landed)")
            + "; the server sent \(sent) bytes for \(size): \(sent - size) re-fetched "
            + String(format: "(%.2f %%)", Double(sent - size) * 100 / Double(size)) + ", \(progressEvents.withLock { $0 }) progress events"
    )

    let backupSize = 24 << 20
    let backup = directory.appendingPathComponent("backup.bin")
    try? Data(export.prefix(backupSize)).write(to: backup)
    let received = Mutex(0)
    server.route(.put, "/backups/today.bin") { request in
        received.withLock { $0 = request.body.count }
        return .status(201)
    }
    let uploadEvents = Mutex<[TransferProgress]>([])
    let (uploadError, uploadTime) = timed { () -> (any Error)? in
        do {
            _ = try client.rx.upload(Backup(), fromFile: backup).do(onNext: { value in uploadEvents.withLock { $0.append(value) } })
                .toBlocking(timeout: 30).toArray()
            return nil
        } catch {
            return error
        }
    }
    let events = uploadEvents.withLock { $0 }
    lines.append(
        "upload: \(backupSize >> 20) MiB streamed from its file in \(ms(uploadTime)), "
            + (uploadError.map { "failed: \($0)" } ?? "the server received \(received.withLock { $0 }) bytes")
            + ", \(events.count) progress events ending at \(events.last.map { "\($0)" } ?? "-")"
    )
    return lines
}
