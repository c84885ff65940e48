import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

final class StubTransportTests: RxTestCase {
    private func request(_ path: String, timeout: TimeInterval = 10) throws -> HTTPTransportRequest {
        HTTPTransportRequest(url: try XCTUnwrap(URL(string: "https://stub.test" + path)), timeoutInterval: timeout)
    }

    /// Collects the results the transport delivers.
    private final class Inbox: @unchecked Sendable {
        // @unchecked Sendable: `results` is only touched under `lock`.
        private let lock = NSLock()
        private var storage: [Result<HTTPResponse, any Error>] = []
        func put(_ result: Result<HTTPResponse, any Error>) { lock.withLock { storage.append(result) } }
        var results: [Result<HTTPResponse, any Error>] { lock.withLock { storage } }
        var statusCodes: [Int] { results.compactMap { try? $0.get().statusCode } }
    }

    func testAnswersImmediatelyWithAMatchingStubOrTheFallback() throws {
        let stub = StubTransport()
        stub.stub(path: "/a", with: .json(#"{"x":1}"#))
        stub.stub(method: .post, path: "/b", with: .status(201))
        let inbox = Inbox()
        _ = stub.send(try request("/a"), options: .standard, completion: inbox.put)
        _ = stub.send(try request("/b"), options: .standard, completion: inbox.put)
        var post = try request("/b")
        post.httpMethod = "POST"
        _ = stub.send(post, options: .standard, completion: inbox.put)
        XCTAssertEqual(inbox.statusCodes, [200, 404, 201])
        XCTAssertEqual(try inbox.results[0].get().body, Data(#"{"x":1}"#.utf8))
        XCTAssertEqual(stub.sentRequests.map { $0.url?.path }, ["/a", "/b", "/b"])
        XCTAssertEqual(stub.sentTransportRequests.map(\.method), [.get, .get, .post], "the requests as the transport received them")
    }

    func testNewerStubsWin() throws {
        let stub = StubTransport()
        stub.stub(path: "/a", with: .status(500))
        stub.stub(path: "/a", with: .status(200))
        let inbox = Inbox()
        _ = stub.send(try request("/a"), options: .standard, completion: inbox.put)
        XCTAssertEqual(inbox.statusCodes, [200])
    }

    func testAQueueOfAnswersIsUsedInOrderThenTheLastRepeats() throws {
        let stub = StubTransport()
        stub.stub(path: "/flaky", responses: [.status(503), .status(502), .json("{}")])
        stub.stub(path: "/none", responses: [])
        let inbox = Inbox()
        for _ in 0..<4 {
            _ = stub.send(try request("/flaky"), options: .standard, completion: inbox.put)
        }
        _ = stub.send(try request("/none"), options: .standard, completion: inbox.put)
        XCTAssertEqual(inbox.statusCodes, [503, 502, 200, 200, 404])
    }

    func testAQueuedStubDrivesTheClientsRetries() throws {
        let stub = StubTransport()
        stub.stub(path: "/flaky", responses: [.status(503), .json(#""ok""#)])
        let client = HTTPClient(
            baseURL: URL(string: "https://stub.test")!,
            configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 2, delay: .immediate)), transport: stub
        )
        let value: String = try client.rx.requestObject(path: "/flaky").toBlocking(timeout: 5).single()
        XCTAssertEqual(value, "ok")
        XCTAssertEqual(stub.sentRequests.count, 2)
    }

    func testDelaysRunInVirtualTime() throws {
        let scheduler = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let stub = StubTransport(scheduler: scheduler)
        stub.stub(path: "/slow", with: .json("{}", delay: .seconds(3)))
        let inbox = Inbox()
        let exchange = stub.send(try request("/slow"), options: .standard, completion: inbox.put)
        scheduler.advance(by: .milliseconds(2_999))
        XCTAssertTrue(inbox.results.isEmpty)
        scheduler.advance(by: .milliseconds(1))
        XCTAssertEqual(inbox.statusCodes, [200])
        exchange.dispose()
        XCTAssertEqual(stub.cancelledCount, 0)
    }

    func testDisposeBeforeTheAnswerCancelsIt() throws {
        let scheduler = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let stub = StubTransport(scheduler: scheduler)
        stub.stub(path: "/slow", with: .status(200, delay: .seconds(1)))
        let inbox = Inbox()
        let exchange = stub.send(try request("/slow"), options: .standard, completion: inbox.put)
        exchange.dispose()
        XCTAssertTrue(scheduler.isIdle, "the scheduled answer is cancelled")
        scheduler.advance(by: .seconds(5))
        XCTAssertTrue(inbox.results.isEmpty)
        XCTAssertEqual(stub.cancelledCount, 1)
    }

    func testAnAnswerLaterThanTheTimeoutTimesOut() throws {
        let scheduler = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let stub = StubTransport(scheduler: scheduler)
        stub.stub(path: "/slow", with: .status(200, delay: .seconds(30)))
        let inbox = Inbox()
        _ = stub.send(try request("/slow", timeout: 2), options: .standard, completion: inbox.put)
        scheduler.advance(by: .milliseconds(1_900))
        XCTAssertTrue(inbox.results.isEmpty)
        scheduler.advance(by: .milliseconds(100))
        XCTAssertEqual(inbox.results.count, 1)
        guard case .failure(let error)? = inbox.results.first else { return XCTFail("expected a failure") }
        XCTAssertEqual((error as? HTTPClientError)?.code, .timedOut)
    }

    func testStubbedFailures() throws {
        let stub = StubTransport()
        stub.stub(where: { $0.url?.query?.contains("boom") ?? false }, with: .failure(HTTPClientError(.transport)))
        let inbox = Inbox()
        _ = stub.send(try request("/x?boom=1"), options: .standard, completion: inbox.put)
        guard case .failure(let error)? = inbox.results.first else { return XCTFail("expected a failure") }
        XCTAssertEqual((error as? HTTPClientError)?.code, .transport)
    }

    func testClientOverStubTransportInVirtualTime() throws {
        struct Item: Decodable, Equatable { let id: Int }
        let scheduler = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let stub = StubTransport(scheduler: scheduler)
        stub.stub(path: "/items/1", with: .json(#"{"id":1}"#, delay: .seconds(60)))
        let queue = DispatchQueue(label: "test.callbacks")
        let client = HTTPClient(
            baseURL: try XCTUnwrap(URL(string: "https://stub.test")),
            configuration: .init(timeout: 120, callbackQueue: queue),
            transport: stub
        )
        let received = expectation(description: "item")
        let subscription = client.rx.requestObject(path: "/items/1").subscribe(onSuccess: { (item: Item) in
            XCTAssertEqual(item, Item(id: 1))
            received.fulfill()
        })
        queue.sync {}
        XCTAssertEqual(stub.sentRequests.count, 1)
        scheduler.advance(by: .seconds(60))
        wait(for: [received], timeout: 2)
        subscription.dispose()
    }
}
