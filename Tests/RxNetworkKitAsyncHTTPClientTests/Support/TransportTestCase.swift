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

/// The transports under test: every shared case runs against each.
enum TransportKind: String, CaseIterable, CustomStringConvertible {
    case urlSession
    case asyncHTTPClient

    var description: String { rawValue }

    func make() -> any HTTPTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .asyncHTTPClient: AsyncHTTPClientTransport()
        }
    }
}

/// Base of the transport tests: a `LoopbackHTTPServer` per test, clients on either transport, and
/// helpers that wait for one result.
class TransportTestCase: RxTestCase {
    let server = LoopbackHTTPServer()
    /// Clients made by the test, shut down (and their transports with them) in `tearDown`.
    private var clients: [RxHTTP.HTTPClient] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        try server.start()
    }

    override func tearDown() {
        for client in clients {
            let done = DispatchSemaphore(value: 0)
            let subscription = client.shutdown(gracePeriod: 0).subscribe { _ in done.signal() }
            XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "a client did not shut down")
            subscription.dispose()
        }
        clients = []
        server.stop()
        super.tearDown()
    }

    /// A client of the server on `kind`'s transport (or `transport`), with a short time-out so that
    /// nothing hangs.
    func makeClient(
        _ kind: TransportKind, timeout: TimeInterval = 5, redirectPolicy: RedirectPolicy = .follow,
        maxResponseBodySize: Int = HTTPTransportOptions.defaultMaxResponseBodySize, baseURL: URL? = nil,
        transport: (any HTTPTransport)? = nil, callbackQueue: DispatchQueue? = nil
    ) -> RxHTTP.HTTPClient {
        let client = RxHTTP.HTTPClient(
            baseURL: baseURL ?? server.baseURL,
            configuration: .init(
                timeout: timeout, callbackQueue: callbackQueue, retryPolicy: .none, redirectPolicy: redirectPolicy,
                maxResponseBodySize: maxResponseBodySize
            ),
            transport: transport ?? kind.make()
        )
        clients.append(client)
        return client
    }

    /// Subscribes to `single`, waits for its event, disposes the subscription.
    func result<T: Sendable>(of single: Single<T>, timeout: TimeInterval = 10) -> Result<T, RxHTTP.HTTPClientError>? {
        let box = LockedBox<Result<T, RxHTTP.HTTPClientError>?>(nil)
        let done = expectation(description: "single event")
        let subscription = single.subscribe(
            onSuccess: { value in box.set(.success(value)); done.fulfill() },
            onFailure: { error in
                box.set(.failure(error as? RxHTTP.HTTPClientError ?? RxHTTP.HTTPClientError(.transport, underlying: error)))
                done.fulfill()
            }
        )
        wait(for: [done], timeout: timeout)
        subscription.dispose()
        return box.value
    }

    /// The error of a failed result, failing the test otherwise.
    func failure<T>(_ result: Result<T, RxHTTP.HTTPClientError>?, _ kind: TransportKind, file: StaticString = #filePath, line: UInt = #line) -> RxHTTP.HTTPClientError? {
        switch result {
        case .failure(let error)?: return error
        case .success(let value)?: XCTFail("\(kind): expected a failure, got \(value)", file: file, line: line)
        case nil: XCTFail("\(kind): no result", file: file, line: line)
        }
        return nil
    }

    /// The value of a successful result, failing the test otherwise.
    func success<T>(_ result: Result<T, RxHTTP.HTTPClientError>?, _ kind: TransportKind, file: StaticString = #filePath, line: UInt = #line) -> T? {
        switch result {
        case .success(let value)?: return value
        case .failure(let error)?: XCTFail("\(kind): expected a success, got \(error)", file: file, line: line)
        case nil: XCTFail("\(kind): no result", file: file, line: line)
        }
        return nil
    }
}

/// A value written on one thread and read on another.
final class LockedBox<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    func set(_ value: Value) {
        storage.withLock { $0 = value }
    }

    @discardableResult
    func mutate<T: Sendable>(_ body: (inout Value) -> T) -> T {
        storage.withLock { body(&$0) }
    }

    var value: Value {
        storage.withLock { $0 }
    }
}

/// A request whose response is the body as text.
struct RawText: Request {
    typealias Response = String
    var path: String
    var method: RxHTTP.HTTPMethod = .get
    var timeout: TimeInterval?
    var headers: [String: String] = [:]
}

/// A request whose response is the response itself (status, headers, body).
struct Raw: Request {
    typealias Response = HTTPResponse
    var path: String
    var method: RxHTTP.HTTPMethod = .get
    var headers: [String: String] = [:]
    var body: any RequestBody = EmptyBody()
}

/// A request whose response is streamed as data chunks.
struct Chunks: Request {
    typealias Response = Data
    var path: String
}

struct User: Codable, Equatable, Sendable {
    let id: Int
    let name: String
}
#endif
