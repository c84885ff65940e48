import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

final class ClientPluginTests: LoopbackClientTestCase {
    /// Records every hook call.
    private struct RecordingPlugin: HTTPPlugin {
        let name: String
        let log: LineCollector

        func prepare(_ request: URLRequest, info: HTTPRequestInfo) -> URLRequest {
            log.append("\(name).prepare")
            var request = request
            let previous = request.value(forHTTPHeaderField: "X-Order") ?? ""
            request.setValue(previous + name, forHTTPHeaderField: "X-Order")
            return request
        }

        func willSend(_ request: URLRequest, info: HTTPRequestInfo) {
            log.append("\(name).willSend")
        }

        func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, request: URLRequest, info: HTTPRequestInfo) {
            switch result {
            case .success(let response): log.append("\(name).didReceive \(response.statusCode)")
            case .failure(let error): log.append("\(name).didReceive \(error.code)")
            }
        }

        func process(_ result: Result<HTTPResponse, HTTPClientError>, info: HTTPRequestInfo) -> Result<HTTPResponse, HTTPClientError> {
            log.append("\(name).process")
            return result
        }
    }

    func testHooksRunInOrderAroundTheExchange() throws {
        server.route(.get, "/x", .json("{}"))
        let log = LineCollector()
        let client = makeClient(plugins: [RecordingPlugin(name: "A", log: log), RecordingPlugin(name: "B", log: log)])
        let single: Single<JSONValue> = client.rx.requestObject(path: "/x")
        XCTAssertNotNil(success(result(of: single)))
        XCTAssertEqual(log.lines, [
            "A.prepare", "B.prepare", "A.willSend", "B.willSend",
            "A.didReceive 200", "B.didReceive 200", "A.process", "B.process",
        ])
        XCTAssertEqual(server.requests.last?.header("X-Order"), "AB")
    }

    func testPluginsSeeFailuresAndCancellations() {
        server.route(.get, "/gone", .status(410))
        server.route(.get, "/slow", LoopbackHTTPResponse.json("{}").delayed(by: 0.5))
        let log = LineCollector()
        let client = makeClient(plugins: [RecordingPlugin(name: "P", log: log)])
        let gone: Single<JSONValue> = client.rx.requestObject(path: "/gone")
        XCTAssertEqual(failure(result(of: gone))?.statusCode, 410)
        XCTAssertTrue(log.lines.contains("P.didReceive unacceptableStatusCode"), "\(log.lines)")

        let done = expectation(description: "cancelled")
        let handle = client.requestObject(path: "/slow") { (_: Result<JSONValue, HTTPClientError>) in done.fulfill() }
        XCTAssertEqual(server.waitForRequests(count: 2, timeout: 2).count, 2)
        handle.cancel()
        wait(for: [done], timeout: 2)
        XCTAssertEqual(log.lines.filter { $0 == "P.didReceive cancelled" }.count, 1)
        XCTAssertEqual(log.lines.filter { $0.hasPrefix("P.willSend") }.count, log.lines.filter { $0.hasPrefix("P.didReceive") }.count)
    }

    func testProcessCanReplaceTheResult() {
        struct TeapotIsFine: HTTPPlugin {
            func process(_ result: Result<HTTPResponse, HTTPClientError>, info: HTTPRequestInfo) -> Result<HTTPResponse, HTTPClientError> {
                if case .failure(let error) = result, error.statusCode == 418 {
                    return .success(HTTPResponse(statusCode: 200, body: Data(#"{"id":0,"name":"teapot"}"#.utf8)))
                }
                return result
            }
        }
        server.route(.get, "/tea", .status(418))
        let single: Single<User> = makeClient(plugins: [TeapotIsFine()]).rx.requestObject(path: "/tea")
        XCTAssertEqual(success(result(of: single))?.name, "teapot")
    }

    func testLoggerRedactsSecrets() throws {
        server.route(.get, "/secret", LoopbackHTTPResponse.json(#"{"id":1,"name":"a"}"#).withHeader("Set-Cookie", "session=s3cr3t"))
        let lines = LineCollector()
        let client = makeClient(plugins: [NetworkLoggerPlugin(logsHeaders: true, sink: lines.append)])
        let single: Single<User> = client.rx.requestObject(
            path: "/secret?access_token=tok123&page=1", parameters: ["api_key": "key456"],
            headers: ["Authorization": "Bearer bearer789", "Cookie": "c=cookie000"]
        )
        XCTAssertNotNil(success(result(of: single)))
        let text = lines.lines.joined(separator: "\n")
        XCTAssertEqual(lines.lines.count, 2, text)
        // Request ids are unique in the process: whatever this one is, both lines carry it.
        let id = lines.lines[0].split(separator: " ").dropFirst().first.map(String.init) ?? "?"
        XCTAssertTrue(id.hasPrefix("#") && !id.contains("."), text)
        XCTAssertTrue(lines.lines[0].hasPrefix("--> \(id) GET http://127.0.0.1:"), text)
        XCTAssertTrue(lines.lines[1].hasPrefix("<-- \(id) 200 GET http://127.0.0.1:"), text)
        XCTAssertTrue(text.contains("page=1"), text)
        XCTAssertTrue(text.contains(" ms, 19 bytes"), text)
        for secret in ["tok123", "key456", "bearer789", "cookie000", "s3cr3t"] {
            XCTAssertFalse(text.contains(secret), "\(secret) leaked:\n\(text)")
        }
        XCTAssertTrue(text.contains("Authorization: <redacted>"), text)
        // The server did get the real values.
        XCTAssertEqual(server.requests.last?.header("Authorization"), "Bearer bearer789")
    }

    func testHeaderInjection() {
        server.route(.get, "/x", .json("{}"))
        let client = makeClient(plugins: [
            HeaderInjectionPlugin(headers: ["X-Api-Key": "k", "Accept": "ignored"]),
            HeaderInjectionPlugin(overridesExisting: true) { info in ["X-Request-Name": info.requestName] },
        ])
        let single: Single<JSONValue> = client.rx.requestObject(path: "/x")
        XCTAssertNotNil(success(result(of: single)))
        XCTAssertEqual(server.requests.last?.header("X-Api-Key"), "k")
        XCTAssertEqual(server.requests.last?.header("Accept"), "application/json")
        XCTAssertEqual(server.requests.last?.header("X-Request-Name"), "requestObject")
    }

    func testInjectedHeadersWithCRLFAreRefusedBeforeSending() {
        let client = makeClient(plugins: [HeaderInjectionPlugin(headers: ["X-Evil": "a\r\nHost: evil"])])
        let single: Single<JSONValue> = client.rx.requestObject(path: "/x")
        XCTAssertEqual(failure(result(of: single))?.code, .invalidRequest)
        XCTAssertTrue(server.requests.isEmpty)
    }

    private struct Profile: Request, AccessTokenAuthorizable {
        typealias Response = JSONValue
        var path: String { "/profile" }
    }

    private struct PublicFeed: Request {
        typealias Response = JSONValue
        var path: String { "/feed" }
    }

    private struct Login: Request, AccessTokenAuthorizable {
        typealias Response = JSONValue
        var path: String { "/login" }
        var authorizationType: AuthorizationType? { nil }
    }

    func testAccessTokenSignsOnlyRequestsThatOptIn() {
        server.route(.get, "/*", .json("{}"))
        let token = LineCollector()
        token.append("t0k")
        let client = makeClient(plugins: [AccessTokenPlugin { _ in token.lines.last }])
        XCTAssertNotNil(success(result(of: client.rx.request(Profile()))))
        XCTAssertEqual(server.requests.last?.header("Authorization"), "Bearer t0k")
        XCTAssertNotNil(success(result(of: client.rx.request(PublicFeed()))))
        XCTAssertNil(server.requests.last?.header("Authorization"))
        XCTAssertNotNil(success(result(of: client.rx.request(Login()))))
        XCTAssertNil(server.requests.last?.header("Authorization"))
        token.append("fresh")
        XCTAssertNotNil(success(result(of: client.rx.request(Profile()))))
        XCTAssertEqual(server.requests.last?.header("Authorization"), "Bearer fresh", "the token is read at send time")
    }

    func testAccessTokenWithADefaultSignsPathRequests() {
        server.route(.get, "/*", .json("{}"))
        let client = makeClient(plugins: [AccessTokenPlugin(defaultAuthorizationType: .custom("Token")) { _ in "abc" }])
        let single: Single<JSONValue> = client.rx.requestObject(path: "/x")
        XCTAssertNotNil(success(result(of: single)))
        XCTAssertEqual(server.requests.last?.header("Authorization"), "Token abc")
    }
}
