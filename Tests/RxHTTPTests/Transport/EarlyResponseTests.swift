import Dispatch
import Foundation
import RxCore
import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// A response can be received and processed before the transport's `send` has even returned (a
/// loopback answer while the sending thread is descheduled). The client must not then keep the
/// finished exchange: it would hold the request, which holds the exchange, forever.
final class EarlyResponseTests: LoopbackClientTestCase {
    /// A client whose transport returns from `send`/`stream` only once `gate`'s plugin began processing.
    private func gatedClient(_ gate: ProcessingGate) -> HTTPClient {
        HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: 5),
            plugins: [gate],
            transport: SendReturnsAfterProcessingTransport(gate: gate)
        )
    }

    func testAResponseProcessedBeforeSendReturnsLeavesNothingAlive() {
        server.route(.get, "/user", .json(#"{"id":1,"name":"a"}"#))
        let gate = ProcessingGate()
        let client = gatedClient(gate)
        let before = Resources.total
        let box = ResultBox<User>()
        let done = expectation(description: "result")
        // given a request whose response is being processed before `send` returns
        let subscription = (client.rx.requestObject(path: "/user") as Single<User>).subscribe(
            onSuccess: { box.set(.success($0)); done.fulfill() },
            onFailure: { box.set(.failure($0 as? HTTPClientError ?? HTTPClientError(.transport))); done.fulfill() }
        )
        XCTAssertTrue(gate.sendReturnedAfterProcessingBegan, "the race was not staged")
        // when processing finishes afterwards
        gate.releaseProcessing()
        wait(for: [done], timeout: 5)
        subscription.dispose()
        // then the result arrived and nothing outlives the request
        XCTAssertEqual(success(box.value), User(id: 1, name: "a"))
        let deadline = Date().addingTimeInterval(1)
        while Resources.total != before && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.002)
        }
        XCTAssertEqual(Resources.total, before, "the finished request and its exchange keep each other alive")
    }

    func testAStreamWhoseHeadIsProcessedBeforeStreamReturnsKeepsFlowing() {
        server.route(.get, "/stream", .stream([.text("one,"), .pause(0.2), .text("two")]))
        let gate = ProcessingGate()
        let client = gatedClient(gate)
        let received = LockedBox(Data())
        let ended = expectation(description: "stream ended")
        // given a stream whose head the client accepted before the transport's `stream` returned
        let subscription = client.rx.stream(StreamPath(path: "/stream")).subscribe(
            onNext: { chunk in received.mutate { $0.append(chunk) } },
            onError: { _ in ended.fulfill() },
            onCompleted: { ended.fulfill() }
        )
        XCTAssertTrue(gate.sendReturnedAfterProcessingBegan, "the race was not staged")
        gate.releaseProcessing()
        // then the body still flows to its end: the exchange belongs to the stream, not to the
        // attempt that the head already ended
        wait(for: [ended], timeout: 3)
        XCTAssertEqual(String(decoding: received.value, as: UTF8.self), "one,two")
        subscription.dispose()
    }
}

private struct StreamPath: Request {
    typealias Response = Data
    let path: String
}

/// Stages the race: the plugin's `process` (which runs after the client claimed the response)
/// tells the transport that processing began, and then waits until the test lets it go on.
private final class ProcessingGate: HTTPPlugin, Sendable {
    private let processingBegan = DispatchSemaphore(value: 0)
    private let processingMayGoOn = DispatchSemaphore(value: 0)
    private let staged = Atomic<Bool>(false)

    var sendReturnedAfterProcessingBegan: Bool { staged.load(ordering: .acquiring) }

    func process(_ result: Result<HTTPResponse, HTTPClientError>, info: HTTPRequestInfo) -> Result<HTTPResponse, HTTPClientError> {
        processingBegan.signal()
        _ = processingMayGoOn.wait(timeout: .now() + 5)
        return result
    }

    func waitForProcessing() {
        let began = processingBegan.wait(timeout: .now() + 5) == .success
        staged.store(began, ordering: .releasing)
    }

    func releaseProcessing() {
        processingMayGoOn.signal()
    }
}

/// The real URLSession transport, except that `send` and `stream` return only once the client has
/// begun processing the response (a stream's head).
private struct SendReturnsAfterProcessingTransport: HTTPTransport {
    let gate: ProcessingGate
    let inner = URLSessionTransport(timeout: 5)

    func send(_ request: HTTPTransportRequest, options: HTTPTransportOptions, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Disposable {
        let exchange = inner.send(request, options: .standard, completion: completion)
        gate.waitForProcessing()
        return exchange
    }

    func stream(
        _ request: HTTPTransportRequest, options: HTTPTransportOptions,
        receive: @escaping @Sendable (Result<HTTPStreamPart, any Error>) -> Void
    ) -> Disposable {
        let exchange = inner.stream(request, options: options, receive: receive)
        gate.waitForProcessing()
        return exchange
    }
}
