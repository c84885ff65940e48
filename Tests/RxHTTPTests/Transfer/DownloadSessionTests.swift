import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// The resume rules of a download, in virtual time and without a network: what each answer does to
/// the file, when progress goes out, and what the retry policy allows between connections.
final class DownloadSessionTests: RxTestCase {
    private var directory: URL!
    private let scheduler = TestScheduler(initialClock: 0, resolution: 0.001, simulateProcessingDelay: false)

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-session-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    private func session(maxFileSize: Int64 = TransferOptions.maxFileSizeLimit) -> (DownloadSession, URL) {
        let destination = directory.appendingPathComponent("file")
        return (DownloadSession(destination: destination, maxFileSize: maxFileSize, scheduler: scheduler), destination)
    }

    private func head(_ status: Int, _ headers: HTTPHeaders) -> HTTPResponseHead {
        HTTPResponseHead(statusCode: status, headers: headers, url: URL(string: "https://files.test/x"))
    }

    private let dropped = HTTPClientError(.transport, message: "connection reset", phase: .responded)

    func testResumingAsksForTheRestOfTheSameRepresentationAndAppendsA206() throws {
        let (download, destination) = session()
        XCTAssertEqual(try download.nextRequestHeaders(), [:])
        XCTAssertNil(download.accept(head(200, ["ETag": "\"a\"", "Content-Length": "10"])))
        _ = try download.write(Data("01234".utf8))
        XCTAssertNotNil(download.resumeWait(after: dropped, policy: RetryPolicy(maxAttempts: 3, delay: .immediate), method: .get))
        XCTAssertEqual(try download.nextRequestHeaders(), ["Range": "bytes=5-", "If-Range": "\"a\""])
        XCTAssertNil(download.accept(head(206, ["Content-Range": "bytes 5-9/10", "ETag": "\"a\""])))
        _ = try download.write(Data("56789".utf8))
        XCTAssertEqual(try download.finish(), TransferProgress(bytes: 10, expectedBytes: 10))
        XCTAssertEqual(try Data(contentsOf: destination), Data("0123456789".utf8))
    }

    func testAWeakETagIsNoValidatorButLastModifiedIs() {
        XCTAssertNil(DownloadSession.validator(of: ["ETag": "W/\"a\""]))
        XCTAssertEqual(DownloadSession.validator(of: ["ETag": "W/\"a\"", "Last-Modified": "Sun, 29 Nov 2026 10:00:00 GMT"]),
                       .lastModified("Sun, 29 Nov 2026 10:00:00 GMT"))
        XCTAssertEqual(DownloadSession.validator(of: ["ETag": "\"a\"", "Last-Modified": "x"]), .etag("\"a\""))
        XCTAssertNil(DownloadSession.validator(of: ["ETag": "\"a\r\nX: 1\""]), "never echoes a header with CR or LF")
    }

    func testA416WhoseLengthIsTheFilesEndsTheDownloadAndAnyOtherStartsOver() throws {
        let (download, destination) = session()
        _ = try download.nextRequestHeaders()
        XCTAssertNil(download.accept(head(200, ["ETag": "\"a\""])))
        _ = try download.write(Data("abc".utf8))
        _ = download.resumeWait(after: dropped, policy: RetryPolicy(maxAttempts: 3, delay: .immediate), method: .get)
        XCTAssertEqual(try download.nextRequestHeaders()["Range"], "bytes=3-")
        let whole = HTTPClientError(.unacceptableStatusCode, statusCode: 416, headers: ["Content-Range": "bytes */3"])
        XCTAssertTrue(download.isWholeAfter(whole))
        let other = HTTPClientError(.unacceptableStatusCode, statusCode: 416, headers: ["Content-Range": "bytes */9"])
        XCTAssertFalse(download.isWholeAfter(other))
        XCTAssertEqual(download.resumeWait(after: other, policy: RetryPolicy(maxAttempts: 3, delay: .immediate), method: .get), 0)
        XCTAssertEqual(try download.nextRequestHeaders(), [:], "started over: no range")
        XCTAssertNil(download.accept(head(200, ["Content-Length": "2"])))
        _ = try download.write(Data("xy".utf8))
        _ = try download.finish()
        XCTAssertEqual(try Data(contentsOf: destination), Data("xy".utf8))
    }

    func testProgressIsThrottledTo64KiBOr100msInVirtualTime() throws {
        let (download, _) = session()
        _ = try download.nextRequestHeaders()
        XCTAssertNil(download.accept(head(200, ["ETag": "\"a\"", "Content-Length": "200000"])))
        XCTAssertEqual(try download.write(Data(count: 1_000))?.bytes, 1_000, "the first chunk reports")
        XCTAssertNil(try download.write(Data(count: 1_000)), "2 KB and no time later: nothing")
        scheduler.advanceTo(100)
        XCTAssertEqual(try download.write(Data(count: 1_000))?.bytes, 3_000, "100 ms later")
        XCTAssertEqual(try download.write(Data(count: 70_000))?.bytes, 73_000, "64 KiB later")
        XCTAssertNil(try download.write(Data(count: 10)))
    }

    func testBetweenConnectionsTheRetryPolicyDecides() throws {
        let (download, _) = session()
        let policy = RetryPolicy(maxAttempts: 3, delay: .exponential(initial: 2, multiplier: 2, maxDelay: 60), jitter: .none)
        _ = try download.nextRequestHeaders()
        // A failure before any head is the call's own: it retried already.
        XCTAssertNil(download.resumeWait(after: dropped, policy: policy, method: .get))
        XCTAssertNil(download.accept(head(200, ["ETag": "\"a\"", "Content-Length": "100"])))
        _ = try download.write(Data(count: 10))
        XCTAssertEqual(download.resumeWait(after: dropped, policy: policy, method: .get), 2, "first failure in a row")
        _ = try download.nextRequestHeaders()
        XCTAssertNil(download.accept(head(206, ["Content-Range": "bytes 10-99/100"])))
        XCTAssertEqual(download.resumeWait(after: dropped, policy: policy, method: .get), 4, "a connection that wrote nothing counts on")
        _ = try download.nextRequestHeaders()
        XCTAssertNil(download.accept(head(206, ["Content-Range": "bytes 10-99/100"])))
        XCTAssertNil(download.resumeWait(after: dropped, policy: policy, method: .get), "three in a row: maxAttempts")
        let notTransient = HTTPClientError(.fileSystem, message: "disk full", phase: .responded)
        XCTAssertNil(download.resumeWait(after: notTransient, policy: RetryPolicy(maxAttempts: 9, delay: .immediate), method: .get))
    }

    func testADeadlineOverTheWholeDownloadStopsResuming() throws {
        let (download, _) = session()
        var policy = RetryPolicy(maxAttempts: 10, delay: .constant(time: 5), jitter: .none)
        policy.deadline = 12
        _ = try download.nextRequestHeaders()
        XCTAssertNil(download.accept(head(200, ["ETag": "\"a\""])))
        _ = try download.write(Data(count: 1))
        XCTAssertEqual(download.resumeWait(after: dropped, policy: policy, method: .get), 5)
        scheduler.advanceTo(8_000)
        _ = try download.nextRequestHeaders()
        XCTAssertNil(download.accept(head(206, ["Content-Range": "bytes 1-9/10"])))
        _ = try download.write(Data(count: 1))
        XCTAssertNil(download.resumeWait(after: dropped, policy: policy, method: .get), "8 s + 5 s passes the 12 s deadline")
    }

    func testContentRangeParsing() {
        XCTAssertEqual(ContentRange("bytes 0-99/100")?.range, 0...99)
        XCTAssertEqual(ContentRange("bytes 0-99/100")?.completeLength, 100)
        XCTAssertEqual(ContentRange("bytes 5-9/*")?.range, 5...9)
        XCTAssertEqual(ContentRange("bytes */42")?.completeLength, 42)
        for bad in ["bytes 9-5/10", "bytes 0-10/10", "bytes */*", "items 0-1/2", "bytes -1-2/3", "bytes 0-1", "bytes 0-99999999999999999999/1", ""] {
            XCTAssertNil(ContentRange(bad), bad)
        }
    }
}
