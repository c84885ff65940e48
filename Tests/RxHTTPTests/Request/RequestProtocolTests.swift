import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

private struct GetUser: Request {
    typealias Response = User
    let id: Int
    var path: String { "/users/\(id)" }
}

private struct CreateUser: Request {
    typealias Response = User
    let name: String
    var path: String { "/users" }
    var method: HTTPMethod { .post }
    var body: any RequestBody { .json(["name": name]) }
    var headers: [String: String] { ["X-Idempotency-Key": "k-1"] }
}

private struct Ping: Request {
    typealias Response = Void
    var path: String { "/ping" }
    var method: HTTPMethod { .delete }
    var query: [String: Any?] { ["reason": "test", "note": nil] }
}

private struct Motd: Request {
    typealias Response = String
    var path: String { "/motd" }
}

private struct Download: Request {
    typealias Response = Data
    var path: String { "/blob" }
    var body: any RequestBody { .raw(Data([1, 2, 3]), contentType: "application/x-test") }
    var method: HTTPMethod { .put }
}

private struct Anything: Request {
    typealias Response = JSONValue
    var path: String { "/any" }
    var body: any RequestBody { .jsonArray([1, "two", nil]) }
    var method: HTTPMethod { .post }
}

private struct Upload: Request {
    typealias Response = Void
    var path: String { "/upload" }
    var method: HTTPMethod { .post }
    var body: any RequestBody {
        .multipart([.text(name: "title", value: "hi"), .file(name: "f", filename: "a.txt", contentType: "text/plain", data: Data("xyz".utf8))])
    }
}

private struct SlowRequest: Request {
    typealias Response = Void
    var path: String { "/slow" }
    var timeout: TimeInterval? { 0.2 }
}

private struct ItemsPage: Request {
    typealias Response = [User]
    var path: String { "/page" }
    func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> [User] {
        try DecodableResponseDecoding<[User]>(keyPath: "page.items").decode(response, context: context)
    }
}

/// A new response kind added by conformance: lines of text.
private struct LinesDecoding: ResponseDecoding {
    func decode(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> [String] {
        try StringResponseDecoding().decode(response, context: context).split(separator: "\n").map(String.init)
    }
}

private protocol LinesRequest: Request where Response == [String] {}

extension LinesRequest {
    func decodeResponse(_ response: HTTPResponse, context: ResponseDecodingContext) throws -> [String] {
        try LinesDecoding().decode(response, context: context)
    }
}

private struct Log: LinesRequest {
    var path: String { "/log" }
}

/// A new body kind added by conformance.
private struct CSVBody: RequestBody {
    let rows: [[String]]
    func encodeBody(using encoder: JSONEncoder) throws -> HTTPBody? {
        HTTPBody(data: Data(rows.map { $0.joined(separator: ",") }.joined(separator: "\n").utf8), contentType: "text/csv")
    }
}

private struct ImportCSV: Request {
    typealias Response = Void
    var path: String { "/import" }
    var method: HTTPMethod { .post }
    var body: any RequestBody { CSVBody(rows: [["a", "b"], ["1", "2"]]) }
}

final class RequestProtocolTests: LoopbackClientTestCase {
    func testDecodableResponse() {
        server.route(.get, "/users/3", .json(#"{"id":3,"name":"c"}"#))
        XCTAssertEqual(success(result(of: makeClient().rx.request(GetUser(id: 3)))), User(id: 3, name: "c"))
    }

    func testCallbackForm() {
        server.route(.get, "/users/4", .json(#"{"id":4,"name":"d"}"#))
        let client = makeClient()
        let result: Result<User, HTTPClientError>? = result { client.request(GetUser(id: 4), completion: $0) }
        XCTAssertEqual(success(result)?.id, 4)
    }

    func testJSONBodyFromEncodableAndHeaders() throws {
        server.route(.post, "/users", .json(#"{"id":9,"name":"n"}"#, status: 201))
        XCTAssertEqual(success(result(of: makeClient().rx.request(CreateUser(name: "n"))))?.id, 9)
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(request.bodyString, #"{"name":"n"}"#)
        XCTAssertEqual(request.header("Content-Type"), "application/json")
        XCTAssertEqual(request.header("X-Idempotency-Key"), "k-1")
    }

    func testVoidAcceptsAnyBodyIncludingEmptyAnd204() {
        server.route(.delete, "/ping", responses: [.noContent, .data(Data([0xFF, 0x00])), .ok])
        let client = makeClient()
        for _ in 0..<3 {
            XCTAssertNotNil(success(result(of: client.rx.request(Ping()))))
        }
        XCTAssertEqual(server.requests.last?.query, "reason=test")
    }

    func testStringResponseAndNonUTF8() {
        server.route(.get, "/motd", responses: [.text("héllo"), .data(Data([0xC3, 0x28]), contentType: "text/plain")])
        let client = makeClient()
        XCTAssertEqual(success(result(of: client.rx.request(Motd()))), "héllo")
        XCTAssertEqual(failure(result(of: client.rx.request(Motd())))?.code, .decodeError)
    }

    func test401ForAStringRequestIsAnOrdinaryStatusError() {
        server.route(.get, "/motd", LoopbackHTTPResponse.text("who are you", status: 401).withHeader("WWW-Authenticate", #"Basic realm="r""#))
        let error = failure(result(of: makeClient(timeout: 3).rx.request(Motd())))
        XCTAssertEqual(error?.statusCode, 401)
        XCTAssertEqual(error?.body, Data("who are you".utf8))
    }

    func testRawDataBothWays() throws {
        server.route(.put, "/blob", .data(Data([9, 8, 7])))
        XCTAssertEqual(success(result(of: makeClient().rx.request(Download()))), Data([9, 8, 7]))
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertEqual(request.body, Data([1, 2, 3]))
        XCTAssertEqual(request.header("Content-Type"), "application/x-test")
    }

    func testUntypedJSONAndJSONArrayBody() throws {
        server.route(.post, "/any", .json(#"{"list":[1,{"k":"v"}]}"#))
        let value = success(result(of: makeClient().rx.request(Anything())))
        XCTAssertEqual(value?["list"]?[1]?["k"], .string("v"))
        XCTAssertEqual(server.requests.last?.bodyString, #"[1,"two",null]"#)
    }

    func testMultipartUpload() throws {
        server.route(.post, "/upload", .status(201))
        XCTAssertNotNil(success(result(of: makeClient().rx.request(Upload()))))
        let request = try XCTUnwrap(server.requests.last)
        XCTAssertTrue(request.header("Content-Type")?.hasPrefix("multipart/form-data; boundary=") ?? false)
        XCTAssertTrue(request.bodyString?.contains("filename=\"a.txt\"\r\nContent-Type: text/plain\r\n\r\nxyz\r\n") ?? false)
    }

    func testRequestTimeoutOverridesTheClients() {
        server.route(.get, "/slow", LoopbackHTTPResponse.ok.delayed(by: 0.6))
        let started = Date()
        XCTAssertEqual(failure(result(of: makeClient(timeout: 10).rx.request(SlowRequest()), timeout: 3))?.code, .timedOut)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(elapsed, 0.19, "timed out before the time-out")
        XCTAssertLessThan(elapsed, 0.55)
    }

    func testKeyPathAndNewKindsByConformance() throws {
        server.route(.get, "/page", .json(#"{"page":{"items":[{"id":1,"name":"a"}]}}"#))
        server.route(.get, "/log", .text("one\ntwo"))
        server.route(.post, "/import", .status(204))
        let client = makeClient()
        XCTAssertEqual(success(result(of: client.rx.request(ItemsPage())))?.count, 1)
        XCTAssertEqual(success(result(of: client.rx.request(Log()))), ["one", "two"])
        XCTAssertNotNil(success(result(of: client.rx.request(ImportCSV()))))
        XCTAssertEqual(server.requests.last?.header("Content-Type"), "text/csv")
        XCTAssertEqual(server.requests.last?.bodyString, "a,b\n1,2")
    }

    func testSubscribingTwiceSendsTwice() {
        server.route(.get, "/users/1", .json(#"{"id":1,"name":"a"}"#))
        let single = makeClient().rx.request(GetUser(id: 1))
        XCTAssertNotNil(success(result(of: single)))
        XCTAssertNotNil(success(result(of: single)))
        XCTAssertEqual(server.requests.count, 2)
    }
}
