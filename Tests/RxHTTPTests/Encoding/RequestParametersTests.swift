import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// `Request.parameters` means what `requestObject(path:parameters:)` means: one name for one concept.
final class RequestParametersTests: LoopbackClientTestCase {
    private struct Search: Request {
        typealias Response = String
        var method: HTTPMethod = .get
        var path: String { "/search" }
        var parameters: [String: Any?] { ["q": "swift", "page": 2, "dropped": nil] }
    }

    private struct SearchWithQuery: Request {
        typealias Response = String
        var method: HTTPMethod { .post }
        var path: String { "/search" }
        var parameters: [String: Any?] { ["q": "swift"] }
        var parameterEncoding: ParameterEncoding { .form }
        var query: [String: Any?] { ["v": 1] }
    }

    private struct BodyAndParameters: Request {
        typealias Response = String
        var method: HTTPMethod { .post }
        var path: String { "/search" }
        var parameters: [String: Any?] { ["q": "swift"] }
        var body: any RequestBody { JSONBody(["x": 1]) }
    }

    func testParametersGoInTheQueryForAGetAndInAJSONBodyOtherwise() throws {
        server.route(.any, "/search", .text("ok"))
        let client = makeClient()
        XCTAssertEqual(success(result(of: client.rx.request(Search()))), "ok")
        let get = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(Set(get.queryItems.map { "\($0.name)=\($0.value ?? "")" }), ["q=swift", "page=2"])
        XCTAssertTrue(get.body.isEmpty)

        XCTAssertEqual(success(result(of: client.rx.request(Search(method: .post)))), "ok")
        let post = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(post.query, nil)
        XCTAssertEqual(post.header("Content-Type"), "application/json")
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: post.body) as? [String: Any])
        XCTAssertEqual(json["q"] as? String, "swift")
        XCTAssertEqual(json["page"] as? Int, 2)
    }

    func testAnEncodingMovesThemAndQueryAlwaysStaysInTheQuery() throws {
        server.route(.post, "/search", .text("ok"))
        XCTAssertEqual(success(result(of: makeClient().rx.request(SearchWithQuery()))), "ok")
        let post = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(post.query, "v=1")
        XCTAssertEqual(String(decoding: post.body, as: UTF8.self), "q=swift")
    }

    func testABodyAndBodyParametersTogetherAreRefused() {
        let error = failure(result(of: makeClient().rx.request(BodyAndParameters())))
        XCTAssertEqual(error?.code, .invalidRequest)
        XCTAssertTrue(error?.message?.contains("BodyAndParameters declares a body and parameters") ?? false, "\(String(describing: error))")
        XCTAssertEqual(server.requests.count, 0)
    }

    func testRequestIDsAreUniqueInTheProcessAndOnePerCall() {
        server.route(.get, "/flaky", responses: [.status(503), .text("ok")])
        server.route(.get, "/ok", .text("ok"))
        let lines = LineCollector()
        let logger = NetworkLoggerPlugin(sink: lines.append)
        let first = HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: RetryPolicy(maxAttempts: 2, delay: .immediate)), plugins: [logger])
        let second = HTTPClient(baseURL: server.baseURL, plugins: [logger])
        _ = result(of: first.rx.request(Text(path: "/flaky")))
        _ = result(of: second.rx.request(Text(path: "/ok")))
        let ids = lines.lines.filter { $0.hasPrefix("-->") }.map { String($0.split(separator: " ")[1]) }
        XCTAssertEqual(ids.count, 3, lines.lines.joined(separator: "\n"))
        XCTAssertEqual(ids[1], ids[0] + ".2", "a retry is an attempt of the same call")
        XCTAssertNotEqual(ids[2], ids[0], "two clients never share an id")
        let numbers = ids.compactMap { UInt64($0.dropFirst().split(separator: ".")[0]) }
        XCTAssertEqual(numbers[2], numbers[0] + 1, "the retry did not spend an id")
    }

    func testAsyncSendOnTheClient() async throws {
        server.route(.get, "/ok", .text("ok"))
        let value = try await makeClient().send(Text(path: "/ok"))
        XCTAssertEqual(value, "ok")
        let response = try await makeClient().response(Text(path: "/ok"))
        XCTAssertEqual(response.statusCode, 200)
    }
}

private struct Text: Request {
    typealias Response = String
    let path: String
}
