import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// `HTTPClientError.phase` as each transport reports it, proven on real sockets: a refused
/// connection was never sent; a connection dropped before or after the server read the request, or
/// a time-out, may have reached the server; any status is a response.
final class FailurePhaseTests: LoopbackClientTestCase {
    private func fetch(_ path: String, client: HTTPClient? = nil, timeout: TimeInterval? = nil) -> HTTPClientError? {
        failure(result(of: (client ?? makeClient()).rx.request(RawText(path: path, method: .post, timeout: timeout))))
    }

    func testARefusedConnectionWasNotSent() throws {
        let port = server.port
        server.stop()
        let client = HTTPClient(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)")))
        let error = fetch("/x", client: client)
        XCTAssertEqual(error?.code, .transport)
        XCTAssertEqual(error?.phase, .notSent)
    }

    func testAConnectionDroppedBeforeTheServerReadAnythingMayHaveBeenSent() {
        server.dropConnectionsOnAccept(1)
        let error = fetch("/x")
        XCTAssertEqual(error?.code, .transport)
        XCTAssertEqual(error?.phase, .sentWithoutResponse)
    }

    func testAConnectionDroppedAfterTheServerReadTheRequestWasSent() {
        server.route(.post, "/x", .dropConnection)
        let error = fetch("/x")
        XCTAssertEqual(error?.code, .transport)
        XCTAssertEqual(error?.phase, .sentWithoutResponse)
        XCTAssertEqual(server.requests(to: "/x").count, 1)
    }

    func testATimeOutWasSentWithoutResponse() {
        server.route(.post, "/slow", LoopbackHTTPResponse.text("late").delayed(by: 0.5))
        let error = fetch("/slow", timeout: 0.1)
        XCTAssertEqual(error?.code, .timedOut)
        XCTAssertEqual(error?.phase, .sentWithoutResponse)
    }

    func testAnyStatusIsAResponse() {
        for status in [400, 404, 429, 500, 503] {
            server.route(.post, "/s", .status(status))
            let error = fetch("/s")
            XCTAssertEqual(error?.phase, .responded, "\(status)")
            XCTAssertEqual(error?.statusCode, status)
        }
    }

    func testAnInvalidRequestWasNotSent() {
        let single: Single<JSONValue> = makeClient().rx.requestObject(path: "/x", headers: ["X-Bad": "a\r\nb"])
        XCTAssertEqual(failure(result(of: single))?.phase, .notSent)
        XCTAssertEqual(server.requests.count, 0)
    }

    func testStubFailuresCarryTheirPhases() {
        let stub = StubTransport()
        stub.stub(path: "/refused", with: .connectionRefused())
        stub.stub(path: "/lost", with: .connectionLost())
        stub.stub(path: "/status", with: .status(503))
        let client = HTTPClient(baseURL: server.baseURL, transport: stub)
        XCTAssertEqual(fetch("/refused", client: client)?.phase, .notSent)
        XCTAssertEqual(fetch("/lost", client: client)?.phase, .sentWithoutResponse)
        XCTAssertEqual(fetch("/status", client: client)?.phase, .responded)
    }

    func testSystemErrorsMapToPhases() {
        func phase(_ code: Int) -> HTTPClientError.Phase {
            URLErrorClassification.classify(NSError(domain: NSURLErrorDomain, code: code), url: nil).phase
        }
        XCTAssertEqual(phase(NSURLErrorCannotConnectToHost), .notSent)
        XCTAssertEqual(phase(NSURLErrorCannotFindHost), .notSent)
        XCTAssertEqual(phase(NSURLErrorDNSLookupFailed), .notSent)
        XCTAssertEqual(phase(NSURLErrorNotConnectedToInternet), .notSent)
        XCTAssertEqual(phase(NSURLErrorNetworkConnectionLost), .sentWithoutResponse)
        XCTAssertEqual(phase(NSURLErrorTimedOut), .sentWithoutResponse)
        XCTAssertEqual(phase(NSURLErrorUnknown), .sentWithoutResponse)
        struct Custom: Error {}
        XCTAssertEqual(URLErrorClassification.classify(Custom(), url: nil).phase, .sentWithoutResponse)
    }
}
