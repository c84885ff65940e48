import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// Base of the tests that go through URLSession to a `LoopbackHTTPServer` on 127.0.0.1: starts a
/// server per test and stops it afterwards.
class LoopbackClientTestCase: RxTestCase {
    let server = LoopbackHTTPServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        try server.start()
    }

    override func tearDown() {
        server.stop()
        super.tearDown()
    }

    /// A client for the server, with a short time-out so that nothing can hang a test.
    func makeClient(
        timeout: TimeInterval = 5,
        plugins: [any HTTPPlugin] = [],
        envelope: ResponseEnvelope? = nil,
        defaultHeaders: [String: String] = HTTPClient.Configuration.standardHeaders
    ) -> HTTPClient {
        HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: timeout, defaultHeaders: defaultHeaders, envelope: envelope),
            plugins: plugins
        )
    }

    /// Subscribes to `single`, waits for its event, disposes the subscription.
    func result<T>(of single: Single<T>, timeout: TimeInterval = 5, file: StaticString = #filePath, line: UInt = #line) -> Result<T, HTTPClientError>? {
        let box = ResultBox<T>()
        let done = expectation(description: "single event")
        let subscription = single.subscribe(
            onSuccess: { box.set(.success($0)); done.fulfill() },
            onFailure: { error in
                box.set(.failure(error as? HTTPClientError ?? HTTPClientError(.transport, underlying: error)))
                done.fulfill()
            }
        )
        wait(for: [done], timeout: timeout)
        subscription.dispose()
        return box.value
    }

    /// Starts a callback-style request, waits for its completion.
    func result<T>(
        timeout: TimeInterval = 5,
        _ start: (@escaping (Result<T, HTTPClientError>) -> Void) -> HTTPRequestHandle
    ) -> Result<T, HTTPClientError>? {
        let box = ResultBox<T>()
        let done = expectation(description: "completion")
        _ = start { result in
            box.set(result)
            done.fulfill()
        }
        wait(for: [done], timeout: timeout)
        return box.value
    }

    /// The error of a failed result, failing the test otherwise.
    func failure<T>(_ result: Result<T, HTTPClientError>?, file: StaticString = #filePath, line: UInt = #line) -> HTTPClientError? {
        switch result {
        case .failure(let error)?:
            return error
        case .success(let value)?:
            XCTFail("expected a failure, got \(value)", file: file, line: line)
        case nil:
            XCTFail("no result", file: file, line: line)
        }
        return nil
    }

    /// The value of a successful result, failing the test otherwise.
    func success<T>(_ result: Result<T, HTTPClientError>?, file: StaticString = #filePath, line: UInt = #line) -> T? {
        switch result {
        case .success(let value)?:
            return value
        case .failure(let error)?:
            XCTFail("expected a success, got \(error)", file: file, line: line)
        case nil:
            XCTFail("no result", file: file, line: line)
        }
        return nil
    }
}

/// A value written from one thread and read from another.
// @unchecked Sendable: `stored` is only touched under `lock`.
final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Result<T, HTTPClientError>?
    private var count = 0

    func set(_ result: Result<T, HTTPClientError>) {
        lock.withLock {
            stored = result
            count += 1
        }
    }

    var value: Result<T, HTTPClientError>? {
        lock.withLock { stored }
    }

    var deliveries: Int {
        lock.withLock { count }
    }
}

/// Lines collected from a logger or plugin, thread-safe.
// @unchecked Sendable: `storage` is only touched under `lock`.
final class LineCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    func append(_ line: String) {
        lock.withLock { storage.append(line) }
    }

    var lines: [String] {
        lock.withLock { storage }
    }
}

struct User: Codable, Equatable {
    let id: Int
    let name: String
}
