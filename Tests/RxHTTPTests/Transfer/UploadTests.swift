import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// `client.rx.upload(_:fromFile:)` against a real server: the file is streamed with its length,
/// every attempt sends it whole, progress ends at its size, bad files are typed errors.
final class UploadTests: LoopbackClientTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    private struct PutBlob: Request {
        typealias Response = Data
        var path = "/blob"
        var method: HTTPMethod = .put
        var headers: [String: String] = [:]
    }

    private func file(_ size: Int) throws -> (URL, Data) {
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        let url = directory.appendingPathComponent("blob-\(size).bin")
        try bytes.write(to: url)
        return (url, bytes)
    }

    private func client(maxAttempts: Int = 1) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: maxAttempts, delay: .immediate)))
    }

    private func run(_ upload: Observable<TransferProgress>) -> (progress: [TransferProgress], error: HTTPClientError?) {
        let progress = Mutex<[TransferProgress]>([])
        let failure = Mutex<HTTPClientError?>(nil)
        let done = expectation(description: "upload ended")
        let subscription = upload.subscribe(
            onNext: { value in progress.withLock { $0.append(value) } },
            onError: { error in failure.withLock { $0 = error as? HTTPClientError }; done.fulfill() },
            onCompleted: { done.fulfill() }
        )
        wait(for: [done], timeout: 10)
        subscription.dispose()
        return (progress.withLock { $0 }, failure.withLock { $0 })
    }

    func testTheFileIsStreamedWithItsLengthAndProgressEndsAtItsSize() throws {
        let (url, bytes) = try file(3 << 20)
        server.route(.put, "/blob", .status(201))
        let (progress, error) = run(client().rx.upload(PutBlob(), fromFile: url))
        XCTAssertNil(error)
        let received = try XCTUnwrap(server.requests(to: "/blob").first)
        XCTAssertEqual(received.body, bytes)
        XCTAssertEqual(received.header("Content-Length"), String(bytes.count))
        XCTAssertEqual(received.header("Content-Type"), "application/octet-stream")
        XCTAssertEqual(progress.last, TransferProgress(bytes: Int64(bytes.count), expectedBytes: Int64(bytes.count)))
        XCTAssertEqual(progress.map(\.bytes), progress.map(\.bytes).sorted(), "monotone")
        XCTAssertGreaterThan(progress.count, 1, "progress while sending, not only at the end")
    }

    func testARetryReadsTheFileFromItsStart() throws {
        let (url, bytes) = try file(1 << 20)
        server.route(.put, "/blob", responses: [.status(503), .status(201)])
        let (progress, error) = run(client(maxAttempts: 2).rx.upload(PutBlob(headers: ["Content-Type": "application/x-tar"]), fromFile: url))
        XCTAssertNil(error)
        let received = server.requests(to: "/blob")
        XCTAssertEqual(received.map(\.body), [bytes, bytes])
        XCTAssertEqual(received.last?.header("Content-Type"), "application/x-tar", "the request's own type wins")
        XCTAssertEqual(progress.map(\.bytes), progress.map(\.bytes).sorted(), "monotone across the retry")
    }

    func testANonIdempotentUploadIsNotSentTwice() throws {
        let (url, _) = try file(10_000)
        server.route(.post, "/blob", responses: [.status(503), .status(201)])
        let error = run(client(maxAttempts: 3).rx.upload(PutBlob(method: .post), fromFile: url)).error
        XCTAssertEqual(error?.statusCode, 503)
        XCTAssertEqual(server.requests(to: "/blob").count, 1, "a POST that reached the server is not repeated")
    }

    func testAMissingOrTooLargeFileIsATypedErrorAndNothingIsSent() throws {
        server.route(.put, "/blob", .status(201))
        let missing = run(client().rx.upload(PutBlob(), fromFile: directory.appendingPathComponent("none"))).error
        XCTAssertEqual(missing?.code, .fileSystem)
        XCTAssertEqual(missing?.phase, .notSent)
        let directoryError = run(client().rx.upload(PutBlob(), fromFile: directory)).error
        XCTAssertEqual(directoryError?.code, .fileSystem, "a directory is not a file")
        let (url, _) = try file(5_000)
        let tooLarge = run(client().rx.upload(PutBlob(), fromFile: url, options: TransferOptions(maxFileSize: 4_000))).error
        XCTAssertEqual(tooLarge?.code, .fileSystem)
        XCTAssertTrue(server.requests.isEmpty)
    }

    func testPluginsSeeTheRequestAndTheFileStaysItsBody() throws {
        let (url, bytes) = try file(100_000)
        server.route(.put, "/blob", .status(201))
        let client = HTTPClient(
            baseURL: server.baseURL, configuration: .init(timeout: 5),
            plugins: [HeaderInjectionPlugin(headers: ["X-Backup": "nightly"])]
        )
        XCTAssertNil(run(client.rx.upload(PutBlob(), fromFile: url)).error)
        let received = try XCTUnwrap(server.requests(to: "/blob").first)
        XCTAssertEqual(received.body, bytes)
        XCTAssertEqual(received.header("X-Backup"), "nightly")
    }

    func testAnEmptyFileUploadsAsAnEmptyBody() throws {
        let (url, _) = try file(0)
        server.route(.put, "/blob", .status(204))
        let (progress, error) = run(client().rx.upload(PutBlob(), fromFile: url))
        XCTAssertNil(error)
        XCTAssertEqual(server.requests(to: "/blob").first?.body, Data())
        XCTAssertEqual(progress.last, TransferProgress(bytes: 0, expectedBytes: 0))
    }
}
