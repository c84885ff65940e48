import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// Every bad input ends in a typed error, quickly, never a crash or a hang.
final class ClientBadInputTests: LoopbackClientTestCase {
    private func fetchUser(_ client: HTTPClient, _ path: String, timeout: TimeInterval = 5) -> HTTPClientError? {
        let single: Single<User> = client.rx.requestObject(path: path)
        return failure(result(of: single, timeout: timeout))
    }

    func test4xxAnd5xxCarryStatusAndBody() {
        server.route(.get, "/missing", .json(#"{"error":"no such user"}"#, status: 404))
        server.route(.get, "/down", .text("maintenance", status: 503))
        let client = makeClient()
        let missing = fetchUser(client, "/missing")
        XCTAssertEqual(missing?.code, .unacceptableStatusCode)
        XCTAssertEqual(missing?.statusCode, 404)
        XCTAssertEqual(missing?.body, Data(#"{"error":"no such user"}"#.utf8))
        XCTAssertEqual(missing?.isTransient, false)
        let down = fetchUser(client, "/down")
        XCTAssertEqual(down?.statusCode, 503)
        XCTAssertEqual(down?.body, Data("maintenance".utf8))
        XCTAssertEqual(down?.isTransient, true)
    }

    func testHTMLWhereJSONWasExpected() {
        server.route(.get, "/html", .data(Data("<html><body>Bad Gateway</body></html>".utf8), contentType: "text/html"))
        let error = fetchUser(makeClient(), "/html")
        XCTAssertEqual(error?.code, .decodeError)
        XCTAssertTrue(error?.description.contains("HTML") ?? false, error?.description ?? "")
        XCTAssertEqual(error?.statusCode, 200)
    }

    func testMalformedJSONBinaryAndEmptyBodies() {
        server.route(.get, "/malformed", .json(#"{"id": 1, "name": "#))
        server.route(.get, "/binary", .data(Data([0xFF, 0xD8, 0xFF, 0x00, 0x81])))
        server.route(.get, "/empty", .ok)
        let client = makeClient()
        for path in ["/malformed", "/binary", "/empty"] {
            XCTAssertEqual(fetchUser(client, path)?.code, .decodeError, path)
        }
    }

    func testNoContentForAModelIsADecodeError() {
        server.route(.get, "/nothing", .noContent)
        let error = fetchUser(makeClient(), "/nothing")
        XCTAssertEqual(error?.code, .decodeError)
        XCTAssertEqual(error?.statusCode, 204)
    }

    func testWrongShapeNamesTheCodingPath() {
        server.route(.get, "/users", .json(#"[{"id":1,"name":"a"},{"id":2}]"#))
        let single: Single<[User]> = makeClient().rx.requestObject(path: "/users")
        let error = failure(result(of: single))
        XCTAssertEqual(error?.code, .decodeError)
        XCTAssertTrue(error?.description.contains("missing key \"name\" at [1]") ?? false, error?.description ?? "")
    }

    func testHeaderValuesWithCRLFAreRefusedBeforeSending() {
        server.route(.any, "/*", .json("{}"))
        let client = makeClient()
        for value in ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b"] {
            let single: Single<JSONValue> = client.rx.requestObject(path: "/h", headers: ["X-Test": value])
            let error = failure(result(of: single))
            XCTAssertEqual(error?.code, .invalidRequest, value.debugDescription)
        }
        let badName: Single<JSONValue> = client.rx.requestObject(path: "/h", headers: ["X Bad": "1"])
        XCTAssertEqual(failure(result(of: badName))?.code, .invalidRequest)
        XCTAssertTrue(server.requests.isEmpty, "the server saw \(server.requests)")
        XCTAssertEqual(server.acceptedConnectionCount, 0)
    }

    func testABadDefaultHeaderFailsEveryRequestUnlessTheRequestReplacesIt() {
        server.route(.any, "/*", .json("{}"))
        let client = makeClient(defaultHeaders: ["Accept": "application/json", "X-Tenant": "a\r\nX-Injected: 1"])
        for _ in 0..<2 {
            let single: Single<JSONValue> = client.rx.requestObject(path: "/h")
            let error = failure(result(of: single))
            XCTAssertEqual(error?.code, .invalidRequest)
            XCTAssertTrue(error?.description.contains("X-Tenant") ?? false, error?.description ?? "")
            XCTAssertFalse(error?.description.contains("X-Injected") ?? true, "the value is not echoed")
        }
        XCTAssertTrue(server.requests.isEmpty, "the server saw \(server.requests)")
        // The request's own header of the same name (in another case) replaces the bad default.
        let replaced: Single<JSONValue> = client.rx.requestObject(path: "/h", headers: ["x-tenant": "b"])
        XCTAssertNotNil(try? result(of: replaced)?.get())
        XCTAssertEqual(server.requests.first?.headers["x-tenant"], "b")
    }

    func testABodyTypeWithCRLFIsRefusedBeforeSending() {
        server.route(.any, "/*", .json("{}"))
        struct Upload: Request {
            typealias Response = JSONValue
            var path: String { "/h" }
            var method: HTTPMethod { .post }
            var body: any RequestBody { RawBody(Data("x".utf8), contentType: "text/plain\r\nX-Injected: 1") }
        }
        XCTAssertEqual(failure(result(of: makeClient().rx.request(Upload())))?.code, .invalidRequest)
        XCTAssertTrue(server.requests.isEmpty)
    }

    func testInvalidMethodAndBaseURL() {
        let client = makeClient()
        let method: Single<JSONValue> = client.rx.requestObject(path: "/x", method: HTTPMethod("GET /evil"))
        XCTAssertEqual(failure(result(of: method))?.code, .invalidRequest)
        let ftp = HTTPClient(baseURL: URL(fileURLWithPath: "/tmp"))
        let local: Single<JSONValue> = ftp.rx.requestObject(path: "/x")
        XCTAssertEqual(failure(result(of: local))?.code, .invalidRequest)
        XCTAssertTrue(server.requests.isEmpty)
    }

    func testRefusedPortIsATransientTransportError() throws {
        let closed = LoopbackHTTPServer()
        try closed.start()
        let url = closed.baseURL
        closed.stop()
        let client = HTTPClient(baseURL: url, configuration: .init(timeout: 5))
        let single: Single<JSONValue> = client.rx.requestObject(path: "/x")
        let error = failure(result(of: single))
        XCTAssertEqual(error?.code, .transport)
        XCTAssertEqual(error?.isTransient, true)
        XCTAssertNotNil(error?.underlying)
    }

    func testServerSlowerThanTheTimeoutTimesOut() {
        server.route(.get, "/slow", LoopbackHTTPResponse.json("{}").delayed(by: 0.8))
        let client = makeClient(timeout: 0.25)
        let started = Date()
        let single: Single<JSONValue> = client.rx.requestObject(path: "/slow")
        let error = failure(result(of: single, timeout: 3))
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(error?.code, .timedOut)
        XCTAssertEqual(error?.isTransient, true)
        XCTAssertGreaterThanOrEqual(elapsed, 0.24, "timed out before the time-out")
        XCTAssertLessThan(elapsed, 0.7)
    }

    func testTrickledBodyHitsTheOverallTimeout() {
        // A byte every 50 ms never trips URLSession's idle time-out; the transport's own timer does.
        server.route(.get, "/trickle", LoopbackHTTPResponse.json(String(repeating: " ", count: 40) + "{}").trickled(delayPerByte: 0.05))
        let client = makeClient(timeout: 0.3)
        let started = Date()
        let single: Single<JSONValue> = client.rx.requestObject(path: "/trickle")
        XCTAssertEqual(failure(result(of: single, timeout: 3))?.code, .timedOut)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(elapsed, 0.29, "timed out before the time-out")
        XCTAssertLessThan(elapsed, 1.2)
    }

    func testConnectionResetMidResponse() {
        let body = String(repeating: "x", count: 2_000)
        server.route(.get, "/cut", LoopbackHTTPResponse.json(#"{"data":""# + body + #""}"#).closingConnection(afterBodyBytes: 100))
        server.route(.get, "/drop", .dropConnection)
        let client = makeClient()
        XCTAssertEqual(fetchUser(client, "/cut")?.code, .transport)
        XCTAssertEqual(fetchUser(client, "/drop")?.code, .transport)
    }

    func test401WithBasicChallengeReturnsAsAnOrdinary401() {
        server.route(.get, "/private", LoopbackHTTPResponse.json(#"{"error":"login"}"#, status: 401)
            .withHeader("WWW-Authenticate", #"Basic realm="test""#))
        let client = makeClient(timeout: 3)
        let started = Date()
        let error = fetchUser(client, "/private")
        XCTAssertEqual(error?.code, .unacceptableStatusCode)
        XCTAssertEqual(error?.statusCode, 401)
        XCTAssertEqual(error?.body, Data(#"{"error":"login"}"#.utf8))
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
    }
}
