import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// A transport that cannot switch protocols ends a WebSocket at once with a typed error: never a
/// crash, a hang or a retry loop.
final class WebSocketUnsupportedTests: LoopbackClientTestCase {
    func testURLSessionFailsAtSubscribeWithUnsupportedAndSendsNothing() throws {
        server.route(.get, "/ws", .webSocket([.echo(count: .max)]))
        let client = makeClient()
        let socket = client.webSocket(path: "/ws")
        let states = LockedBox([WebSocketState]())
        let stateSubscription = socket.state.subscribe(onNext: { state in states.mutate { $0.append(state) } })
        let failed = expectation(description: "failed")
        let failure = LockedBox<HTTPClientError?>(nil)
        let subscription = socket.messages.subscribe(onError: { error in
            failure.mutate { $0 = error as? HTTPClientError }
            failed.fulfill()
        })
        wait(for: [failed], timeout: 5)
        subscription.dispose()
        stateSubscription.dispose()
        let error = try XCTUnwrap(failure.value)
        XCTAssertEqual(error.code, .unsupported)
        XCTAssertEqual(error.phase, .notSent)
        XCTAssertTrue(error.description.contains("AsyncHTTPClientTransport"), error.description)
        XCTAssertFalse(error.isTransient)
        XCTAssertEqual(states.value.first, .idle)
        XCTAssertEqual(states.value.dropFirst().first, .connecting)
        guard case .closed? = states.value.last else { return XCTFail("ended with \(states.value)") }
        XCTAssertEqual(server.requests.count, 0, "nothing reached the server")
    }

    /// A transport of someone else's that only sends: the protocol's default `upgrade`.
    private final class SendOnlyTransport: HTTPTransport {
        func send(_ request: HTTPTransportRequest, options: HTTPTransportOptions, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> Disposable {
            completion(.success(HTTPResponse(statusCode: 200, url: request.url)))
            return Disposables.create()
        }
    }

    func testATransportWithoutUpgradeSaysItIsUnsupported() throws {
        let client = HTTPClient(baseURL: server.baseURL, transport: SendOnlyTransport())
        let failure = try firstFailure(of: client.webSocket(path: "/ws"))
        XCTAssertEqual(failure.code, .unsupported)
        XCTAssertTrue(failure.description.contains("SendOnlyTransport"), failure.description)
    }

    /// `StubTransport` switches protocols only for its WebSocket stubs; another path gets what an
    /// HTTP server answers there (its fallback: 404), and the socket ends for good.
    func testStubTransportWithoutAWebSocketStubAnswers404() throws {
        let client = HTTPClient(baseURL: server.baseURL, transport: StubTransport())
        let failure = try firstFailure(of: client.webSocket(path: "/ws"))
        XCTAssertEqual(failure.code, .unacceptableStatusCode)
        XCTAssertEqual(failure.statusCode, 404)
    }

    private func firstFailure(of socket: WebSocket) throws -> HTTPClientError {
        let failed = expectation(description: "failed")
        let failure = LockedBox<HTTPClientError?>(nil)
        let subscription = socket.messages.subscribe(onError: { error in
            failure.mutate { $0 = error as? HTTPClientError }
            failed.fulfill()
        })
        wait(for: [failed], timeout: 5)
        subscription.dispose()
        return try XCTUnwrap(failure.value)
    }

    func testASendWithNobodySubscribedFailsAtOnce() {
        let socket = makeClient().webSocket(path: "/ws")
        let failed = expectation(description: "failed")
        let failure = LockedBox<HTTPClientError?>(nil)
        _ = socket.send(.text("hi")).subscribe(onError: { error in
            failure.mutate { $0 = error as? HTTPClientError }
            failed.fulfill()
        })
        wait(for: [failed], timeout: 2)
        XCTAssertEqual(failure.value?.code, .cancelled)
        XCTAssertEqual(socket.currentState, .idle)
    }

    func testAMessageOverTheLimitIsRefusedBeforeAnythingIsQueued() {
        let socket = makeClient().webSocket(path: "/ws", options: WebSocketOptions(maxMessageSize: 200))
        let failure = LockedBox<HTTPClientError?>(nil)
        _ = socket.send(.binary(Data(count: 201))).subscribe(onError: { error in failure.mutate { $0 = error as? HTTPClientError } })
        XCTAssertEqual(failure.value?.code, .invalidRequest)
    }
}
