import Foundation
@testable import RxHTTP
import XCTest

final class RequestBodyTests: XCTestCase {
    private let encoder = JSONEncoder()

    private func jsonObject(_ body: HTTPBody?) throws -> [String: Any] {
        let data = try XCTUnwrap(body?.data)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testCompactDropsNilsAlsoNestedInOptionals() {
        let missing: Int? = nil
        let doubly: Int?? = .some(nil)
        let parameters: [String: Any?] = ["a": 1, "b": missing, "c": doubly as Any, "d": "x", "e": nil]
        let compacted = ParameterValues.compact(parameters)
        XCTAssertEqual(Set(compacted.keys), ["a", "d"])
    }

    func testPairsAreSortedAndFlattened() throws {
        let nested: [String: Any?] = ["y": "2", "x": nil]
        let pairs = try ParameterValues.pairs(["z": true, "a": [1, 2], "m": nested, "b": 1.5, "c": false])
        XCTAssertEqual(pairs.map { "\($0.0)=\($0.1)" }, ["a[]=1", "a[]=2", "b=1.5", "c=false", "m[y]=2", "z=true"])
    }

    func testJSONObjectBodyDropsNilsInObjectsAndKeepsNullInArrays() throws {
        let missing: String? = nil
        struct Point: Encodable { let x: Int }
        let nested: [String: Any?] = ["c": missing, "d": [1, missing] as [Any?]]
        let body = try JSONObjectBody(["a": 1, "b": missing, "nested": nested, "p": Point(x: 3)])
            .encodeBody(using: encoder)
        XCTAssertEqual(body?.contentType, "application/json")
        let text = try XCTUnwrap(body.map { String(decoding: $0.data, as: UTF8.self) })
        XCTAssertEqual(text, #"{"a":1,"nested":{"d":[1,null]},"p":{"x":3}}"#)
    }

    func testJSONObjectBodyRefusesWhatJSONCannotRepresent() {
        XCTAssertThrowsError(try JSONObjectBody(["x": Double.nan]).encodeBody(using: encoder))
        XCTAssertThrowsError(try JSONObjectBody(["x": NSObject()]).encodeBody(using: encoder))
    }

    func testJSONBodyUsesTheEncoder() throws {
        struct Payload: Encodable { let userName: String }
        let snake = JSONEncoder()
        snake.keyEncodingStrategy = .convertToSnakeCase
        let body = try RequestBodyTests.encode(.json(Payload(userName: "a")), with: snake)
        XCTAssertEqual(try jsonObject(body)["user_name"] as? String, "a")
    }

    func testFormBody() throws {
        let body = try FormURLEncodedBody(["b": "two words", "a": "1+1=2&x", "n": Optional<Int>.none as Any?]).encodeBody(using: encoder)
        XCTAssertEqual(body.map { String(decoding: $0.data, as: UTF8.self) }, "a=1%2B1%3D2%26x&b=two+words")
        XCTAssertEqual(body?.contentType, "application/x-www-form-urlencoded; charset=utf-8")
    }

    func testMultipartBody() throws {
        let body = try MultipartFormBody(parts: [
            .text(name: "title", value: "hi"),
            .file(name: "file", filename: "a\"b\r\n.txt", contentType: "text/plain", data: Data("xyz".utf8)),
        ], boundary: "B").encodeBody(using: encoder)
        XCTAssertEqual(body?.contentType, "multipart/form-data; boundary=B")
        let text = try XCTUnwrap(body.map { String(decoding: $0.data, as: UTF8.self) })
        XCTAssertEqual(text, """
        --B\r\nContent-Disposition: form-data; name="title"\r\n\r\nhi\r\n\
        --B\r\nContent-Disposition: form-data; name="file"; filename="a%22b%0D%0A.txt"\r\nContent-Type: text/plain\r\n\r\nxyz\r\n\
        --B--\r\n
        """)
        XCTAssertThrowsError(try MultipartFormBody(parts: [.file(name: "f", filename: "f", contentType: "a\r\nb", data: Data())])
            .encodeBody(using: encoder))
    }

    func testRawAndEmptyBodies() throws {
        XCTAssertNil(try EmptyBody().encodeBody(using: encoder))
        let raw = try RequestBodyTests.encode(.raw(Data([0, 1]), contentType: "application/x-test"), with: encoder)
        XCTAssertEqual(raw, HTTPBody(data: Data([0, 1]), contentType: "application/x-test"))
    }

    private static func encode(_ body: some RequestBody, with encoder: JSONEncoder) throws -> HTTPBody? {
        try body.encodeBody(using: encoder)
    }
}
