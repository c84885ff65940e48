import Foundation
@testable import RxHTTP
import RxTesting
import XCTest

/// The disk store: answers survive a restart, the bytes stay bounded, and whatever is wrong with a
/// file — torn, flipped, a stranger's, a crash mid-write — is dropped as a miss, never a crash.
final class DiskCacheTests: LoopbackClientTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-cache-\(UUID().uuidString)")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    private func entry(_ body: String, at time: TimeInterval = 1_700_000_000) -> CachedResponse {
        CachedResponse(statusCode: 200, headers: ["Cache-Control": "max-age=60", "Link": "<a>", "ETag": "\"\(body.count)\"", "link": "<b>"],
                       body: Data(body.utf8),
                       url: URL(string: "https://api.test/x"), requestTime: Date(timeIntervalSince1970: time),
                       responseTime: Date(timeIntervalSince1970: time + 0.5), varyValues: ["accept": "application/json"])
    }

    private func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    func testAnswersSurviveARestart() throws {
        server.route(.get, "/feed", LoopbackHTTPResponse.text("v1").withHeader("Cache-Control", "max-age=600"))
        let first = HTTPCache(directory: directory)
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, cache: first))
        XCTAssertEqual(success(result(of: client.rx.response(Feed())))?.cacheStatus, .network)
        first.flush()
        // a new process: a new cache on the same directory
        let second = HTTPCache(directory: directory)
        XCTAssertNil(second.diskError)
        let restarted = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, cache: second))
        let answer = success(result(of: restarted.rx.response(Feed())))
        XCTAssertEqual(answer?.value, "v1")
        XCTAssertEqual(answer?.cacheStatus, .hit)
        XCTAssertEqual(server.requests(to: "/feed").count, 1)
    }

    func testTheFormatRoundTripsAndTheDirectoryIsPrivate() throws {
        let store = try DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        let variants = [entry("one"), entry("two, longer", at: 1_700_000_100)]
        store.write(variants, for: "https://api.test/x")
        store.flush()
        XCTAssertEqual(store.variants(for: "https://api.test/x"), variants)
        XCTAssertEqual(store.variants(for: "https://api.test/x")?.first?.headers.values(for: "Link"), ["<a>", "<b>"], "every line, in order")
        XCTAssertNil(store.variants(for: "https://api.test/y"))
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(mode?.intValue, 0o700)
        let file = try XCTUnwrap(files().first)
        let fileMode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path)[.posixPermissions] as? NSNumber
        XCTAssertEqual(fileMode?.intValue, 0o600)
    }

    func testACorruptOrTornFileIsDroppedAsAMiss() throws {
        let key = "https://api.test/x"
        let store = try DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        store.write([entry("payload")], for: key)
        store.flush()
        let path = directory.appendingPathComponent(DiskCacheStore.fileName(for: key)).path
        let good = try XCTUnwrap(FileManager.default.contents(atPath: path))
        // every single flipped byte, and every truncation, reads as a miss
        for index in stride(from: 0, to: good.count, by: max(1, good.count / 40)) {
            var bad = good
            bad[index] ^= 0x5A
            XCTAssertNil(DiskCacheStore.decode(bad), "byte \(index) flipped")
        }
        for length in stride(from: 0, to: good.count, by: max(1, good.count / 40)) {
            XCTAssertNil(DiskCacheStore.decode(good.prefix(length)), "torn at \(length)")
        }
        // on disk: the torn file is deleted when met, and the next store starts clean
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: path))
        let reopened = try DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        XCTAssertNil(reopened.variants(for: key))
        reopened.flush()
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(reopened.totalBytes, 0)
    }

    func testAStrangersFileAndAnotherKeysFileAreMisses() throws {
        let store = try DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        // a file with a cache file's name but someone else's bytes
        let name = DiskCacheStore.fileName(for: "https://api.test/a")
        try Data("hello, not a cache file".utf8).write(to: directory.appendingPathComponent(name))
        // a valid file for another key under this key's name (a collision)
        let other = try XCTUnwrap(DiskCacheStore.encode(key: "https://api.test/other", variants: [entry("o")]))
        try other.write(to: directory.appendingPathComponent(DiskCacheStore.fileName(for: "https://api.test/b")))
        let reopened = try DiskCacheStore(directory: directory, maxBytes: 1 << 20)
        XCTAssertNil(reopened.variants(for: "https://api.test/a"))
        XCTAssertNil(reopened.variants(for: "https://api.test/b"))
        XCTAssertNil(store.variants(for: "https://api.test/c"))
    }

    func testTheStoreIsBoundedAndEvictsTheLeastRecentlyUsed() throws {
        let store = try DiskCacheStore(directory: directory, maxBytes: 16_000)
        let body = String(repeating: "x", count: 1_500)
        for index in 0..<5 {
            store.write([entry(body)], for: "k\(index)")
            store.flush()
            Thread.sleep(forTimeInterval: 0.01)
        }
        _ = store.variants(for: "k0")   // used: now the most recent
        for index in 5..<12 {
            store.write([entry(body)], for: "k\(index)")
            store.flush()
        }
        XCTAssertLessThanOrEqual(store.totalBytes, 16_000)
        XCTAssertNotNil(store.variants(for: "k0"), "recently used: kept")
        XCTAssertNil(store.variants(for: "k1"), "least recently used: evicted")
        XCTAssertNotNil(store.variants(for: "k11"))
        let onDisk = files().reduce(0) { total, name in
            total + ((try? FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(name).path)[.size] as? NSNumber)?.intValue ?? 0)
        }
        XCTAssertLessThanOrEqual(onDisk, 16_000)
        // an answer bigger than an eighth of the store is not written at all
        store.write([entry(String(repeating: "y", count: 3_000))], for: "big")
        store.flush()
        XCTAssertNil(store.variants(for: "big"))
    }

    func testAnUnusableDirectoryLeavesTheCacheInMemory() throws {
        let file = directory.appendingPathExtension("file")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let cache = HTTPCache(directory: file.appendingPathComponent("sub"))
        XCTAssertNotNil(cache.diskError)
        server.route(.get, "/feed", LoopbackHTTPResponse.text("v1").withHeader("Cache-Control", "max-age=600"))
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, cache: cache))
        _ = result(of: client.rx.response(Feed()))
        XCTAssertEqual(success(result(of: client.rx.response(Feed())))?.cacheStatus, .hit)
    }

    /// A writer process killed with SIGKILL in the middle of its writes: whatever it left is either
    /// a whole entry or nothing, and temporary files are cleared at the next start.
    func testAKillMidWriteLeavesWholeEntriesOrNothing() throws {
        guard let executable = Self.testExecutable() else { throw XCTSkip("the test binary's path is not known") }
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: executable)
        writer.arguments = ["RxHTTPTests.DiskCacheTests/testWriterProcess"]
        writer.environment = ProcessInfo.processInfo.environment.merging(["RXNK_CACHE_WRITER_DIR": directory.path]) { $1 }
        writer.standardOutput = FileHandle.nullDevice
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        // Let it write for a while, then kill it where it stands.
        XCTAssertTrue(waitUntil(timeout: 5) { self.files().count >= 20 }, "the writer wrote nothing")
        Thread.sleep(forTimeInterval: 0.05)
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        let reopened = try DiskCacheStore(directory: directory, maxBytes: 1 << 30)
        XCTAssertFalse(files().contains { $0.hasPrefix(DiskCacheStore.temporaryPrefix) }, "temporary files are removed at start")
        var whole = 0
        for index in 0..<100_000 {
            guard let variants = reopened.variants(for: "key-\(index)") else { continue }
            XCTAssertEqual(variants.first?.body.count, 4_096 + index % 7, "entry \(index) is whole")
            whole += 1
        }
        XCTAssertGreaterThanOrEqual(whole, 20)
    }

    /// Run in a child process by `testAKillMidWriteLeavesWholeEntriesOrNothing`: writes entries
    /// until killed. Does nothing in a normal run.
    func testWriterProcess() throws {
        guard let path = ProcessInfo.processInfo.environment["RXNK_CACHE_WRITER_DIR"] else { return }
        let store = try DiskCacheStore(directory: URL(fileURLWithPath: path), maxBytes: 1 << 30)
        for index in 0..<100_000 {
            let body = String(repeating: "z", count: 4_096 + index % 7)
            store.write([entry(body)], for: "key-\(index)")
            if index % 16 == 0 { store.flush() }
        }
        store.flush()
    }

    private static func testExecutable() -> String? {
        let candidate = CommandLine.arguments.first ?? ""
        return candidate.hasSuffix(".xctest") || candidate.contains("PackageTests") ? candidate : nil
    }
}

private struct Feed: Request {
    typealias Response = String
    var path: String { "/feed" }
}
