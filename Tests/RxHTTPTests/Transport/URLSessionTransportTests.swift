import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

final class URLSessionTransportTests: LoopbackClientTestCase {
    func testNoCookiesAreKeptOrSentByDefault() {
        server.route(.get, "/login", LoopbackHTTPResponse.json("{}").withHeader("Set-Cookie", "session=abc; Path=/"))
        server.route(.get, "/me", .json("{}"))
        let client = makeClient()
        let login: Single<JSONValue> = client.rx.requestObject(path: "/login")
        let me: Single<JSONValue> = client.rx.requestObject(path: "/me")
        XCTAssertNotNil(success(result(of: login)))
        XCTAssertNotNil(success(result(of: me)))
        XCTAssertNil(server.requests.last?.header("Cookie"))
    }

    func testURLSessionsOwnTimeoutsAreWholeSecondsOneLaterThanOurs() {
        XCTAssertEqual(URLSessionTransport.sessionTimeout(0.25), 2)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(1.5), 3)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(15), 16)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(.infinity), 1_000_000_001)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(1e300), 1_000_000_001)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(.nan), 16)
        XCTAssertEqual(URLSessionTransport.sessionTimeout(-3), 16)
    }

    func testTransportUsedDirectly() throws {
        server.route(.get, "/raw", LoopbackHTTPResponse.text("hi", status: 418))
        let transport = URLSessionTransport()
        let box = ResultBox<HTTPResponse>()
        let done = expectation(description: "response")
        var request = URLRequest(url: server.url("/raw"))
        request.timeoutInterval = 2
        let exchange = transport.send(request) { result in
            box.set(result.mapError { $0 as? HTTPClientError ?? HTTPClientError(.transport, underlying: $0) })
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        exchange.dispose()
        let response = try XCTUnwrap(box.value?.get())
        XCTAssertEqual(response.statusCode, 418)
        XCTAssertEqual(response.body, Data("hi".utf8))
        XCTAssertEqual(response.value(forHTTPHeaderField: "content-type"), "text/plain; charset=utf-8")
    }
}
