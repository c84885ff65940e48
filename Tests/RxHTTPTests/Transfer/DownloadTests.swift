import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// `client.rx.download(_:to:)` against a real server that cuts connections mid-body and honours
/// `Range`/`If-Range`: the file lands whole, resumes append, changed files start over, nothing is
/// left behind.
final class DownloadTests: LoopbackClientTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    private struct File: Request {
        typealias Response = Data
        var path = "/file"
    }

    private func body(_ size: Int, seed: UInt8 = 7) -> Data {
        var generator = SplitMix(seed: UInt64(seed))
        return Data((0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    private func client(maxAttempts: Int = 4) -> HTTPClient {
        HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: maxAttempts, delay: .immediate))
        )
    }

    /// Subscribes, waits for the end, returns the progress values and the error if any.
    private func run(_ download: Observable<TransferProgress>, timeout: TimeInterval = 10) -> (progress: [TransferProgress], error: HTTPClientError?) {
        let progress = Mutex<[TransferProgress]>([])
        let failure = Mutex<HTTPClientError?>(nil)
        let done = expectation(description: "download ended")
        let subscription = download.subscribe(
            onNext: { value in progress.withLock { $0.append(value) } },
            onError: { error in failure.withLock { $0 = error as? HTTPClientError }; done.fulfill() },
            onCompleted: { done.fulfill() }
        )
        wait(for: [done], timeout: timeout)
        subscription.dispose()
        return (progress.withLock { $0 }, failure.withLock { $0 })
    }

    private var leftovers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    func testADownloadLandsWholeWithMonotoneProgressAndNothingElseIsLeft() throws {
        let file = body(3 << 20)
        server.route(.get, "/file") { request in .ranged(file, for: request, etag: "\"v1\"") }
        let destination = directory.appendingPathComponent("export.bin")
        let (progress, error) = run(client().rx.download(File(), to: destination))
        XCTAssertNil(error)
        XCTAssertEqual(try Data(contentsOf: destination), file)
        XCTAssertEqual(progress.last, TransferProgress(bytes: Int64(file.count), expectedBytes: Int64(file.count)))
        XCTAssertEqual(progress.map(\.bytes), progress.map(\.bytes).sorted(), "monotone")
        XCTAssertEqual(Set(progress.map(\.bytes)).count, progress.count, "never the same value twice")
        XCTAssertLessThanOrEqual(progress.count, file.count / (64 << 10) + 2, "at most every 64 KiB (or 100 ms)")
        XCTAssertEqual(leftovers, ["export.bin"], "the temporary file was renamed")
    }

    func testTwoDropsResumeWithRangeAndIfRangeAndRefetchAlmostNothing() throws {
        let file = body(2 << 20)
        let connections = Mutex(0)
        server.route(.get, "/file") { request in
            let number = connections.withLock { $0 += 1; return $0 }
            let answer = LoopbackHTTPResponse.ranged(file, for: request, etag: "\"v1\"")
            return number <= 2 ? answer.closingConnection(afterBodyBytes: 700_000) : answer
        }
        let destination = directory.appendingPathComponent("export.bin")
        let (progress, error) = run(client().rx.download(File(), to: destination))
        XCTAssertNil(error)
        XCTAssertEqual(try Data(contentsOf: destination), file)
        let requests = server.requests(to: "/file")
        XCTAssertEqual(requests.map { $0.header("Range") }, [nil, "bytes=700000-", "bytes=1400000-"])
        XCTAssertEqual(requests.map { $0.header("If-Range") }, [nil, "\"v1\"", "\"v1\""])
        XCTAssertEqual(progress.map(\.bytes), progress.map(\.bytes).sorted())
        XCTAssertEqual(progress.last?.bytes, Int64(file.count))
        XCTAssertEqual(leftovers, ["export.bin"])
    }

    func testAFileChangedOnTheServerStartsOverInsteadOfSplicingTwoVersions() throws {
        let first = body(1 << 20, seed: 1)
        let second = body(1 << 20, seed: 2)
        let connections = Mutex(0)
        server.route(.get, "/file") { request in
            let number = connections.withLock { $0 += 1; return $0 }
            // The file changes between the two connections: the If-Range no longer matches.
            return number == 1
                ? LoopbackHTTPResponse.ranged(first, for: request, etag: "\"v1\"").closingConnection(afterBodyBytes: 300_000)
                : LoopbackHTTPResponse.ranged(second, for: request, etag: "\"v2\"")
        }
        let destination = directory.appendingPathComponent("export.bin")
        let (progress, error) = run(client().rx.download(File(), to: destination))
        XCTAssertNil(error)
        XCTAssertEqual(try Data(contentsOf: destination), second)
        XCTAssertEqual(server.requests(to: "/file").last?.header("If-Range"), "\"v1\"", "it asked for the rest of v1 and got v2 whole")
        XCTAssertEqual(progress.map(\.bytes), progress.map(\.bytes).sorted(), "progress stays monotone across the start-over")
    }

    func testWithoutAValidatorTheNextConnectionStartsOver() throws {
        let file = body(1 << 20)
        let connections = Mutex(0)
        server.route(.get, "/file") { request in
            let number = connections.withLock { $0 += 1; return $0 }
            let answer = LoopbackHTTPResponse.ranged(file, for: request)
            return number == 1 ? answer.closingConnection(afterBodyBytes: 400_000) : answer
        }
        let destination = directory.appendingPathComponent("export.bin")
        let (_, error) = run(client().rx.download(File(), to: destination))
        XCTAssertNil(error)
        XCTAssertEqual(try Data(contentsOf: destination), file)
        XCTAssertEqual(server.requests(to: "/file").map { $0.header("Range") }, [nil, nil], "no validator: never a range")
    }

    func testLastModifiedServesAsTheValidatorWithoutAnETag() throws {
        let file = body(1 << 20)
        let modified = "Sun, 29 Nov 2026 10:00:00 GMT"
        let connections = Mutex(0)
        server.route(.get, "/file") { request in
            let number = connections.withLock { $0 += 1; return $0 }
            let answer = LoopbackHTTPResponse.ranged(file, for: request, lastModified: modified)
            return number == 1 ? answer.closingConnection(afterBodyBytes: 500_000) : answer
        }
        let destination = directory.appendingPathComponent("export.bin")
        XCTAssertNil(run(client().rx.download(File(), to: destination)).error)
        XCTAssertEqual(try Data(contentsOf: destination), file)
        XCTAssertEqual(server.requests(to: "/file").last?.header("If-Range"), modified)
    }

    func testA206ThatDoesNotContinueTheFileIsNeverAppended() throws {
        let file = body(1 << 20)
        let connections = Mutex(0)
        server.route(.get, "/file") { request in
            let number = connections.withLock { $0 += 1; return $0 }
            switch number {
            case 1:
                return LoopbackHTTPResponse.ranged(file, for: request, etag: "\"v1\"").closingConnection(afterBodyBytes: 200_000)
            case 2:
                // A broken server: the wrong part.
                return LoopbackHTTPResponse.data(file.subdata(in: 0..<100), status: 206).withHeader("Content-Range", "bytes 0-99/\(file.count)")
            default:
                return LoopbackHTTPResponse.ranged(file, for: request, etag: "\"v1\"")
            }
        }
        let destination = directory.appendingPathComponent("export.bin")
        XCTAssertNil(run(client().rx.download(File(), to: destination)).error)
        XCTAssertEqual(try Data(contentsOf: destination), file)
        XCTAssertEqual(server.requests(to: "/file").map { $0.header("Range") }, [nil, "bytes=200000-", nil], "the third starts over")
    }

    func testDisposingStopsAndLeavesNothingAtTheDestination() throws {
        let file = body(256 << 10)
        server.route(.get, "/file", LoopbackHTTPResponse.data(file).withHeader("ETag", "\"v1\"").chunked(chunkSize: 16 << 10, delayBetweenChunks: 0.05))
        let destination = directory.appendingPathComponent("export.bin")
        let started = expectation(description: "some bytes")
        let once = Mutex(false)
        let subscription = client().rx.download(File(), to: destination).subscribe(onNext: { _ in
            if once.withLock({ let first = !$0; $0 = true; return first }) { started.fulfill() }
        })
        wait(for: [started], timeout: 5)
        subscription.dispose()
        XCTAssertTrue(waitUntil { self.leftovers.isEmpty }, "left: \(leftovers)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination.path))
    }

    func testAnExistingFileIsReplacedOnlyWhenTheDownloadIsWhole() throws {
        let destination = directory.appendingPathComponent("export.bin")
        try Data("old".utf8).write(to: destination)
        server.route(.get, "/file", LoopbackHTTPResponse.status(500))
        XCTAssertEqual(run(client(maxAttempts: 1).rx.download(File(), to: destination)).error?.statusCode, 500)
        XCTAssertEqual(try Data(contentsOf: destination), Data("old".utf8), "a failed download leaves the old file")
        XCTAssertEqual(leftovers, ["export.bin"])
        let file = body(10_000)
        server.route(.get, "/file") { request in .ranged(file, for: request, etag: "\"v1\"") }
        XCTAssertNil(run(client().rx.download(File(), to: destination)).error)
        XCTAssertEqual(try Data(contentsOf: destination), file)
    }

    func testAFileLargerThanTheLimitFailsAtItsHeadAndLeavesNothing() {
        let file = body(100_000)
        server.route(.get, "/file") { request in .ranged(file, for: request, etag: "\"v1\"") }
        let destination = directory.appendingPathComponent("export.bin")
        let error = run(client().rx.download(File(), to: destination, options: TransferOptions(maxFileSize: 50_000))).error
        XCTAssertEqual(error?.code, .fileSystem)
        XCTAssertTrue(error?.description.contains("50000") ?? false, error?.description ?? "")
        XCTAssertEqual(server.requests(to: "/file").count, 1, "not resumed: a limit is not transient")
        XCTAssertTrue(leftovers.isEmpty)
    }

    func testAMissingDirectoryIsATypedErrorAndNothingIsResent() {
        let file = body(1_000)
        server.route(.get, "/file") { request in .ranged(file, for: request, etag: "\"v1\"") }
        let destination = directory.appendingPathComponent("no-such-directory/export.bin")
        let error = run(client().rx.download(File(), to: destination)).error
        XCTAssertEqual(error?.code, .fileSystem)
        XCTAssertEqual(server.requests(to: "/file").count, 1)
    }

    func testTheRetryPolicyBoundsConnectionsInARowThatWriteNothing() {
        let file = body(100_000)
        server.route(.get, "/file") { request in
            // Every connection dies before its first body byte.
            LoopbackHTTPResponse.ranged(file, for: request, etag: "\"v1\"").closingConnection(afterBodyBytes: 0)
        }
        let destination = directory.appendingPathComponent("export.bin")
        let error = run(client(maxAttempts: 3).rx.download(File(), to: destination)).error
        XCTAssertNotNil(error)
        XCTAssertLessThanOrEqual(server.requests(to: "/file").count, 3 * 3, "each connection's call retries within the policy, and so do the resumes")
        XCTAssertTrue(leftovers.isEmpty)
    }

    /// URLSession reads on while its delegate queue is blocked (here by the reader itself, as a disk
    /// that throttles writes would): once more than 512 chunks wait there, the exchange stops
    /// reading, hands over every chunk it already received, and the download resumes after the
    /// last of them — nothing fetched twice but what was in flight, nothing held without bound.
    func testAURLSessionBacklogPastItsBoundStopsReadingAndResumesAfterTheLastChunkReceived() throws {
        // 24 MiB: a random MiB repeated, each copy marked, so that a splice would show.
        let block = body(1 << 20)
        var file = Data(capacity: 24 << 20)
        for copy in 0..<24 {
            var marked = block
            marked[0] = UInt8(copy)
            file.append(marked)
        }
        let whole = file
        let connections = Mutex(0)
        server.route(.get, "/file") { request in
            let number = connections.withLock { $0 += 1; return $0 }
            let answer = LoopbackHTTPResponse.ranged(whole, for: request, etag: "\"v1\"")
            // The first body paced (24 MiB in at least 0.4 s), so that it is still arriving when the
            // exchange stops reading.
            return number == 1 ? answer.chunked(chunkSize: 64 << 10, delayBetweenChunks: 0.001) : answer
        }
        let client = client()
        let transport = try XCTUnwrap(client.transport as? URLSessionTransport)
        let destination = directory.appendingPathComponent("export.bin")
        let blocked = Mutex(false)
        let done = expectation(description: "download ended")
        let failure = Mutex<Error?>(nil)
        let subscription = client.rx.download(File(), to: destination).subscribe(
            onNext: { _ in
                guard blocked.withLock({ let first = !$0; $0 = true; return first }) else { return }
                transport.blockDelegateQueueUntilPastTheBacklogBound()
            },
            onError: { error in failure.withLock { $0 = error }; done.fulfill() },
            onCompleted: { done.fulfill() }
        )
        wait(for: [done], timeout: 20)
        subscription.dispose()
        XCTAssertNil(failure.withLock { $0 })
        XCTAssertEqual(try Data(contentsOf: destination), whole)
        let requests = server.requests(to: "/file")
        XCTAssertGreaterThanOrEqual(requests.count, 2, "the backlog stopped the first connection")
        let resumedAt = requests.dropFirst().first?.header("Range").flatMap { Int($0.dropFirst("bytes=".count).dropLast()) }
        XCTAssertGreaterThan(resumedAt ?? 0, URLSessionExchange.maxPendingCallbacks(for: .standard) * 1_024, "the chunks that waited were written, not fetched again")
        XCTAssertEqual(requests.dropFirst().first?.header("If-Range"), "\"v1\"")
    }

    private func waitUntil(_ condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(3)
        while !condition() {
            if Date() > end { return false }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return true
    }
}

/// A small deterministic generator for test bodies.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
