import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

final class ClientRequestObjectTests: LoopbackClientTestCase {
    func testCallbackFormDecodesAModel() {
        // given
        server.route(.get, "/users/42", .json(#"{"id":42,"name":"Ada"}"#))
        let client = makeClient()
        // when
        let result: Result<User, HTTPClientError>? = result { client.requestObject(path: "/users/42", completion: $0) }
        // then
        XCTAssertEqual(success(result), User(id: 42, name: "Ada"))
    }

    func testReactiveFormDecodesAModel() {
        server.route(.get, "/users/7", .json(#"{"id":7,"name":"Grace"}"#))
        let client = makeClient()
        let single: Single<User> = client.rx.requestObject(path: "users/7")
        XCTAssertEqual(success(result(of: single)), User(id: 7, name: "Grace"))
    }

    /// `HTTPClient(host: "127.0.0.1:PORT")` means https; against a plain-HTTP server the error
    /// says "did you mean http://…?" instead of only OpenSSL's words.
    func testAnHTTPSClientOfAPlainHTTPServerIsToldToUseHTTP() throws {
        server.route(.get, "/users/1", .json(#"{"id":1,"name":"Ada"}"#))
        let port = try XCTUnwrap(server.baseURL.port)
        let client = HTTPClient(host: "127.0.0.1:\(port)", configuration: .init(timeout: 5))
        let error = failure(result(of: client.rx.requestObject(User.self, path: "/users/1")))
        XCTAssertEqual(error?.code, .transport)
        XCTAssertTrue(error?.description.contains("did you mean http://127.0.0.1:\(port)?") ?? false, error?.description ?? "")
    }

    /// A full URL of another server given as a path fails at once, nothing sent; one of the
    /// client's own origin (a `next` link) is followed.
    func testAFullURLAsAPath() {
        server.route(.get, "/users/7", .json(#"{"id":7,"name":"Grace"}"#))
        let client = makeClient()
        let same = client.rx.requestObject(User.self, path: server.baseURL.absoluteString + "/users/7")
        XCTAssertEqual(success(result(of: same)), User(id: 7, name: "Grace"))
        let other = client.rx.requestObject(User.self, path: "http://example.invalid/users/7")
        XCTAssertEqual(failure(result(of: other))?.code, .invalidRequest)
        XCTAssertEqual(server.requests(to: "/users/7").count, 1)
    }

    func testCompletionsArriveOnTheCallbackQueueNotMain() {
        server.route(.get, "/ping", .json("{}"))
        let queue = DispatchQueue(label: "test.callbacks")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(callbackQueue: queue))
        let box = ResultBox<Bool>()
        let done = expectation(description: "completion")
        client.requestObject(path: "/ping") { (_: Result<JSONValue, HTTPClientError>) in
            box.set(.success(DispatchQueue.getSpecific(key: key) == true && !Thread.isMainThread))
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        XCTAssertEqual(try box.value?.get(), true)
    }

    func testGETParametersGoToTheQueryWithoutNils() throws {
        server.route(.get, "/search", .json("[]"))
        let client = makeClient()
        let missing: String? = nil
        let single: Single<[JSONValue]> = client.rx.requestObject(
            path: "/search?sort=asc", parameters: ["q": "swift nio", "page": 2, "lang": missing, "flag": true, "tags": ["a", "b&c"]]
        )
        XCTAssertNotNil(success(result(of: single)))
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(request.query, "sort=asc&flag=true&page=2&q=swift%20nio&tags%5B%5D=a&tags%5B%5D=b%26c")
        XCTAssertEqual(request.queryValue("q"), "swift nio")
        XCTAssertNil(request.queryValue("lang"))
        XCTAssertTrue(request.body.isEmpty)
    }

    func testDELETEParametersGoToTheQuery() throws {
        server.route(.any, "/items/1", .json("{}"))
        let client = makeClient()
        let deleted: Single<JSONValue> = client.rx.requestObject(path: "/items/1", method: .delete, parameters: ["hard": true])
        XCTAssertNotNil(success(result(of: deleted)))
        XCTAssertEqual(server.requests.last?.method, .delete)
        XCTAssertEqual(server.requests.last?.queryValue("hard"), "true")
    }

    func testPOSTParametersGoToAJSONBodyWithoutNils() throws {
        server.route(.post, "/users", .json(#"{"id":1,"name":"Ada"}"#, status: 201))
        let client = makeClient()
        let missing: Int? = nil
        let single: Single<User> = client.rx.requestObject(
            path: "/users", method: .post, parameters: ["name": "Ada", "age": missing, "tags": ["x"]]
        )
        XCTAssertEqual(success(result(of: single)), User(id: 1, name: "Ada"))
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(request.header("Content-Type"), "application/json")
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        XCTAssertEqual(Set(body.keys), ["name", "tags"])
        XCTAssertNil(request.query)
    }

    func testFormEncodingOnRequest() throws {
        server.route(.post, "/login", .json("{}"))
        let client = makeClient()
        let single: Single<JSONValue> = client.rx.requestObject(
            path: "/login", method: .post, parameters: ["user": "a b", "password": "p&w=1"], encoding: .form
        )
        XCTAssertNotNil(success(result(of: single)))
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(request.header("Content-Type"), "application/x-www-form-urlencoded; charset=utf-8")
        XCTAssertEqual(request.bodyString, "password=p%26w%3D1&user=a+b")
    }

    func testPathsArePercentEncodedAndJoinedWithOneSlash() throws {
        server.route(.get, "/v1/files/*", .json("{}"))
        let client = HTTPClient(baseURL: server.url("/v1/"))
        let single: Single<JSONValue> = client.rx.requestObject(path: "/files/a b/ü/#1")
        XCTAssertNotNil(success(result(of: single)))
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(request.path, "/v1/files/a%20b/%C3%BC/%231")
        XCTAssertEqual(request.decodedPath, "/v1/files/a b/ü/#1")
    }

    func testEscapedSegmentKeepsQuestionMarksInThePath() throws {
        server.route(.get, "/files/*", .json("{}"))
        let client = makeClient()
        let single: Single<JSONValue> = client.rx.requestObject(path: "/files/" + HTTPClient.escapedPathSegment("what?.txt"))
        XCTAssertNotNil(success(result(of: single)))
        XCTAssertEqual(server.requests.last?.path, "/files/what%3F.txt")
        XCTAssertNil(server.requests.last?.query)
    }

    func testDefaultHeadersAndOverrides() throws {
        server.route(.get, "/h", .json("{}"))
        let client = makeClient()
        let plain: Single<JSONValue> = client.rx.requestObject(path: "/h")
        XCTAssertNotNil(success(result(of: plain)))
        let first = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(first.header("User-Agent"), "RxNetworkKit/\(RxHTTPModule.version)")
        XCTAssertEqual(first.header("Accept"), "application/json")
        XCTAssertEqual(first.header("Accept-Encoding"), "gzip, deflate")

        let custom: Single<JSONValue> = client.rx.requestObject(path: "/h", headers: ["accept": "text/plain", "X-Trace": "t-1"])
        XCTAssertNotNil(success(result(of: custom)))
        let second = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(second.headers.values(for: "Accept"), ["text/plain"])
        XCTAssertEqual(second.header("X-Trace"), "t-1")
    }

    func testHostInitialiserWithAFullURLString() {
        server.route(.get, "/ok", .json(#"{"id":1,"name":"x"}"#))
        let client = HTTPClient(host: server.baseURL.absoluteString)
        let single: Single<User> = client.rx.requestObject(path: "ok")
        XCTAssertEqual(success(result(of: single))?.id, 1)
    }

    func testEnvelopeIsUnwrapped() {
        server.route(.get, "/me", .json(#"{"status":0,"message":"ok","data":{"id":5,"name":"E"}}"#))
        server.route(.get, "/expired", .json(#"{"status":401,"message":"token expired","data":null}"#))
        let client = makeClient(envelope: ResponseEnvelope())
        let me: Single<User> = client.rx.requestObject(path: "/me")
        XCTAssertEqual(success(result(of: me)), User(id: 5, name: "E"))
        let expired: Single<User> = client.rx.requestObject(path: "/expired")
        let error = failure(result(of: expired))
        XCTAssertEqual(error?.code, .envelopeFailure)
        XCTAssertEqual(error?.statusCode, 200)
        XCTAssertTrue(error?.message?.contains("token expired") ?? false)
    }

    func testParallelRequestsFromManyThreads() {
        server.route(.get, "/n/*", .json(#"{"id":1,"name":"n"}"#))
        let client = makeClient()
        let count = 24
        let results = (0..<count).map { _ in ResultBox<User>() }
        let group = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            group.enter()
            client.requestObject(path: "/n/\(index)") { (result: Result<User, HTTPClientError>) in
                results[index].set(result)
                group.leave()
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(results.filter { (try? $0.value?.get()) != nil }.count, count)
        XCTAssertEqual(Set(server.requests.map(\.path)).count, count)
    }
}
