// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import RxCore
import RxHTTP
import RxNetworkKitAsyncHTTPClient
import RxTesting
import Synchronization
import XCTest

/// Downloads that resume after cut connections and uploads streamed from a file, on both
/// transports, against a real server.
final class TransferTests: TransportTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-transfer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
        super.tearDown()
    }

    private struct Export: Request {
        typealias Response = Data
        var path = "/export"
    }

    private struct PutBlob: Request {
        typealias Response = Data
        var path = "/blob"
        var method: HTTPMethod { .put }
    }

    private func client(_ kind: TransportKind) -> RxHTTP.HTTPClient {
        let client = RxHTTP.HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 3, delay: .constant(time: 0.05))),
            transport: kind.make()
        )
        return client
    }

    private func run(_ transfer: Observable<TransferProgress>) -> (progress: [TransferProgress], error: (any Error)?) {
        let progress = Mutex<[TransferProgress]>([])
        let failure = Mutex<(any Error)?>(nil)
        let done = expectation(description: "transfer ended")
        let subscription = transfer.subscribe(
            onNext: { value in progress.withLock { $0.append(value) } },
            onError: { error in failure.withLock { $0 = error }; done.fulfill() },
            onCompleted: { done.fulfill() }
        )
        wait(for: [done], timeout: 10)
        subscription.dispose()
        return (progress.withLock { $0 }, failure.withLock { $0 })
    }

    func testADownloadCutTwiceResumesAndLandsWholeOnBothTransports() throws {
        let file = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) })
        for kind in TransportKind.allCases {
            let connections = Mutex(0)
            server.route(.get, "/export") { request in
                let number = connections.withLock { $0 += 1; return $0 }
                let answer = LoopbackHTTPResponse.ranged(file, for: request, etag: "\"e1\"")
                return number <= 2 ? answer.closingConnection(afterBodyBytes: 1_000_000) : answer
            }
            let destination = directory.appendingPathComponent("export-\(kind).bin")
            let (progress, error) = run(client(kind).rx.download(Export(), to: destination))
            XCTAssertNil(error, "\(kind)")
            XCTAssertEqual(try Data(contentsOf: destination), file, "\(kind)")
            let ranges = server.requests(to: "/export").suffix(3).map { $0.header("Range") }
            XCTAssertEqual(ranges, [nil, "bytes=1000000-", "bytes=2000000-"], "\(kind)")
            XCTAssertEqual(progress.last?.bytes, Int64(file.count), "\(kind)")
            XCTAssertEqual(progress.map(\.bytes), progress.map(\.bytes).sorted(), "\(kind)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["export-asyncHTTPClient.bin", "export-urlSession.bin"])
    }

    func testAnUploadStreamsTheFileWithItsLengthOnBothTransports() throws {
        let bytes = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let source = directory.appendingPathComponent("blob.bin")
        try bytes.write(to: source)
        for kind in TransportKind.allCases {
            server.route(.put, "/blob", responses: [.status(503), .status(201)])
            let before = server.requests(to: "/blob").count
            let (progress, error) = run(client(kind).rx.upload(PutBlob(), fromFile: source))
            XCTAssertNil(error, "\(kind)")
            let received = server.requests(to: "/blob").dropFirst(before)
            XCTAssertEqual(received.map(\.body), [bytes, bytes], "\(kind): the retry read the file from its start")
            XCTAssertEqual(received.first?.header("Content-Length"), String(bytes.count), "\(kind)")
            XCTAssertNil(received.first?.header("Transfer-Encoding"), "\(kind)")
            XCTAssertEqual(progress.last, TransferProgress(bytes: Int64(bytes.count), expectedBytes: Int64(bytes.count)), "\(kind)")
            XCTAssertGreaterThan(progress.count, 2, "\(kind): progress while sending")
            XCTAssertEqual(progress.map(\.bytes), progress.map(\.bytes).sorted(), "\(kind)")
        }
    }

    func testAFileShorterThanItsAnnouncedLengthFailsTheExchange() throws {
        // The length is taken when the request is built; the file is read as it is sent.
        let source = directory.appendingPathComponent("shrunk.bin")
        try Data(count: 10).write(to: source)
        server.route(.put, "/blob", .status(201))
        let transport = AsyncHTTPClientTransport()
        defer { transport.shutdown() }
        var request = HTTPTransportRequest(method: .put, url: server.url("/blob"))
        request.body = .file(HTTPFileBody(url: source, length: 1 << 20))
        let box = Mutex<Result<HTTPResponse, any Error>?>(nil)
        let done = expectation(description: "answered")
        let exchange = transport.send(request, options: .standard) { result in box.withLock { $0 = result }; done.fulfill() }
        wait(for: [done], timeout: 5)
        exchange.dispose()
        guard case .failure(let error as RxHTTP.HTTPClientError)? = box.withLock({ $0 }) else {
            return XCTFail("\(String(describing: box.withLock { $0 }))")
        }
        XCTAssertEqual(error.code, .fileSystem)
    }
}
#endif
