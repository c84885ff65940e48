// Runs with the package trait `Logging` only (`swift test --traits Logging`).
#if Logging
import Foundation
import InMemoryLogging
import Logging
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// `NetworkLoggerPlugin(logger:)` over a real transport: the swift-server levels, structured
/// metadata, and the same redaction as the text logger.
final class LoggerIntegrationTests: LoopbackClientTestCase {
    private func client(_ handler: InMemoryLogHandler, level: Logger.Level, logsHeaders: Bool = false, policy: RetryPolicy = .none) -> HTTPClient {
        var logger = Logger(label: "test.api") { _ in handler }
        logger.logLevel = level
        return HTTPClient(
            baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: policy),
            plugins: [NetworkLoggerPlugin(logger: logger, logsHeaders: logsHeaders)]
        )
    }

    func testDebugIsOneLinePerCallWithMetadataAndTraceAddsTheAttempts() throws {
        server.route(.get, "/items/1", responses: [.status(503), .json(#"{"id":1}"#)])
        let logs = InMemoryLogHandler()
        let client = client(logs, level: .trace, policy: RetryPolicy(maxAttempts: 2, delay: .immediate))
        XCTAssertNotNil(success(result(of: client.rx.request(Raw(path: "/items/1")))))

        let debug = logs.entries.filter { $0.level == .debug }
        XCTAssertEqual(debug.count, 1)
        let line = try XCTUnwrap(debug.first)
        XCTAssertEqual(line.metadata["http.request.method"], "GET")
        XCTAssertEqual(line.metadata["http.response.status_code"], "200")
        XCTAssertEqual(line.metadata["http.request.resend_count"], "1")
        XCTAssertEqual(line.metadata["url.full"]?.description, server.baseURL.appendingPathComponent("items/1").absoluteString)
        XCTAssertNotNil(line.metadata["duration_ms"])
        XCTAssertNotNil(line.metadata["http.request.id"])
        XCTAssertNil(line.metadata["error.type"])
        // two attempts, each sent and answered
        let trace = logs.entries.filter { $0.level == .trace }
        XCTAssertEqual(trace.count, 4)
        XCTAssertEqual(trace.compactMap { $0.metadata["http.response.status_code"]?.description }, ["503", "200"])
        XCTAssertEqual(trace.compactMap { $0.metadata["http.request.attempt"]?.description }, ["1", "1", "2", "2"])
    }

    /// A cache hit sends nothing, and still logs the full (redacted) URL, as a network call does.
    func testACacheHitLogsTheFullURL() throws {
        server.route(.get, "/cached", .json(#"{"id":1}"#).withHeader("Cache-Control", "max-age=60"))
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "test.api") { _ in logs }
        logger.logLevel = .debug
        let client = HTTPClient(
            baseURL: server.baseURL, configuration: .init(timeout: 5, cache: HTTPCache(directory: nil)),
            plugins: [NetworkLoggerPlugin(logger: logger)]
        )
        XCTAssertNotNil(success(result(of: client.rx.request(Raw(path: "/cached?access_token=s3cret")))))
        XCTAssertNotNil(success(result(of: client.rx.request(Raw(path: "/cached?access_token=s3cret")))))
        XCTAssertEqual(server.requests(to: "/cached").count, 1, "the second came from the cache")
        let urls = logs.entries.compactMap { $0.metadata["url.full"]?.description }
        XCTAssertEqual(urls.count, 2)
        for url in urls {
            XCTAssertTrue(url.hasPrefix(server.baseURL.absoluteString + "/cached?access_token="), url)
            XCTAssertFalse(url.contains("s3cret"), url)
        }
    }

    func testAFailedCallSaysItsErrorTypeAtDebug() throws {
        server.route(.get, "/gone", .status(404))
        let logs = InMemoryLogHandler()
        let client = client(logs, level: .debug)
        XCTAssertEqual(failure(result(of: client.rx.request(Raw(path: "/gone"))))?.code, .unacceptableStatusCode)
        XCTAssertEqual(logs.entries.count, 1, "no .trace line at .debug")
        let line = try XCTUnwrap(logs.entries.first)
        XCTAssertEqual(line.level, .debug)
        XCTAssertEqual(line.metadata["error.type"], "unacceptableStatusCode")
        XCTAssertEqual(line.metadata["http.response.status_code"], "404")
    }

    func testALoggerAboveDebugGetsNothing() {
        server.route(.get, "/x", .json("{}"))
        let logs = InMemoryLogHandler()
        let client = client(logs, level: .info)
        XCTAssertNotNil(success(result(of: client.rx.request(Raw(path: "/x")))))
        XCTAssertTrue(logs.entries.isEmpty)
    }

    func testSecretsReachNeitherMessagesNorMetadata() {
        server.route(.get, "/secret", .json(#"{"ok":true}"#))
        let logs = InMemoryLogHandler()
        let client = client(logs, level: .trace, logsHeaders: true)
        let request = Raw(path: "/secret?access_token=tok-123&page=2", headers: ["Authorization": "Bearer tok-456", "Cookie": "session=tok-789"])
        XCTAssertNotNil(success(result(of: client.rx.request(request))))
        XCTAssertFalse(logs.entries.isEmpty)
        for entry in logs.entries {
            let text = entry.message.description + " " + entry.metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            XCTAssertFalse(text.contains("tok-"), "a secret reached the log: \(text)")
        }
        XCTAssertTrue(logs.entries.contains { $0.metadata["url.full"]?.description.contains("page=2") == true })
    }
}

private struct Raw: Request {
    typealias Response = Data
    let path: String
    var headers: [String: String] = [:]
}
#endif
