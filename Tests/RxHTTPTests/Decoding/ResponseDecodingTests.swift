import Foundation
@testable import RxHTTP
import XCTest

final class ResponseDecodingTests: XCTestCase {
    struct User: Decodable, Equatable {
        let id: Int
        let name: String
    }

    private let context = ResponseDecodingContext(decoder: JSONDecoder(), envelope: nil)

    private func response(_ body: String, status: Int = 200, contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(statusCode: status, headers: ["Content-Type": contentType], body: Data(body.utf8))
    }

    private func decodeError<T: Decodable>(
        _ type: T.Type, _ response: HTTPResponse, keyPath: String? = nil, envelope: ResponseEnvelope? = nil
    ) -> HTTPClientError? {
        let context = ResponseDecodingContext(decoder: JSONDecoder(), envelope: envelope)
        do {
            _ = try DecodableResponseDecoding<T>(keyPath: keyPath).decode(response, context: context)
            XCTFail("expected an error")
            return nil
        } catch {
            return error as? HTTPClientError
        }
    }

    func testDecodesAModel() throws {
        let user = try DecodableResponseDecoding<User>().decode(response(#"{"id":1,"name":"a"}"#), context: context)
        XCTAssertEqual(user, User(id: 1, name: "a"))
    }

    func testEmptyBodyAnd204AreDecodeErrors() {
        let empty = decodeError(User.self, HTTPResponse(statusCode: 200))
        XCTAssertEqual(empty?.code, .decodeError)
        XCTAssertTrue(empty?.description.contains("empty") ?? false)
        let noContent = decodeError(User.self, HTTPResponse(statusCode: 204))
        XCTAssertEqual(noContent?.code, .decodeError)
        XCTAssertEqual(noContent?.statusCode, 204)
    }

    func testHTMLIsNamed() {
        let error = decodeError(User.self, response("<!DOCTYPE html><html></html>", contentType: "text/html"))
        XCTAssertEqual(error?.code, .decodeError)
        XCTAssertTrue(error?.description.contains("HTML") ?? false, error?.description ?? "")
    }

    /// A text/plain body is called text, whatever its first character (it was "HTML or XML"); the
    /// description shows an excerpt of it.
    func testATextBodyIsCalledTextAndShown() {
        let error = decodeError(User.self, response("<html>oops</html>", contentType: "text/plain"))
        let text = error?.description ?? ""
        XCTAssertTrue(text.contains("the body is text, not JSON (17 bytes, text/plain)"), text)
        XCTAssertTrue(text.contains(#"body: 17 bytes: "<html>oops</html>""#), text)
        let untyped = decodeError(User.self, HTTPResponse(statusCode: 200, body: Data("<a/>".utf8)))
        XCTAssertTrue(untyped?.description.contains("HTML or XML") ?? false, untyped?.description ?? "")
    }

    func testMalformedJSONAndBinary() {
        let malformed = decodeError(User.self, response(#"{"id": 1,"#))
        XCTAssertEqual(malformed?.code, .decodeError)
        XCTAssertTrue(malformed?.description.contains("not valid JSON") ?? false, malformed?.description ?? "")
        let binary = decodeError(User.self, HTTPResponse(statusCode: 200, body: Data([0xFF, 0xFE, 0x00, 0x80, 0xC3])))
        XCTAssertEqual(binary?.code, .decodeError)
    }

    func testWrongShapeNamesTheCodingPath() {
        let error = decodeError([User].self, response(#"[{"id":1,"name":"a"},{"id":"two","name":"b"}]"#))
        XCTAssertEqual(error?.code, .decodeError)
        XCTAssertTrue(error?.description.contains("[1].id") ?? false, error?.description ?? "")
        XCTAssertTrue(error?.underlying is DecodingError)
        let missing = decodeError(User.self, response(#"{"id":1}"#))
        XCTAssertTrue(missing?.description.contains("missing key \"name\"") ?? false, missing?.description ?? "")
    }

    func testEnvelopeUnwrapsDataAndReportsFailures() throws {
        let envelope = ResponseEnvelope()
        let ctx = ResponseDecodingContext(decoder: JSONDecoder(), envelope: envelope)
        let user = try DecodableResponseDecoding<User>().decode(
            response(#"{"status":0,"message":"ok","data":{"id":2,"name":"b"}}"#), context: ctx
        )
        XCTAssertEqual(user, User(id: 2, name: "b"))

        let failure = decodeError(User.self, response(#"{"status":1001,"message":"token expired","data":null}"#), envelope: envelope)
        XCTAssertEqual(failure?.code, .envelopeFailure)
        XCTAssertTrue(failure?.message?.contains("token expired") ?? false)
        XCTAssertFalse(failure?.isTransient ?? true)

        let nested = decodeError(User.self, response(#"{"status":"ok","data":{"id":2}}"#), envelope: envelope)
        XCTAssertEqual(nested?.code, .decodeError)
        XCTAssertTrue(nested?.description.contains("\"data\"") ?? false, nested?.description ?? "")

        let noData = decodeError(User.self, response(#"{"status":"ok"}"#), envelope: envelope)
        XCTAssertEqual(noData?.code, .decodeError)

        let optional = try DecodableResponseDecoding<User?>().decode(response(#"{"status":200}"#), context: ctx)
        XCTAssertNil(optional)
    }

    func testCustomEnvelopeKeys() throws {
        let envelope = ResponseEnvelope(statusKey: "code", messageKey: "msg", dataKey: "result.payload") { $0 == .string("SUCCESS") }
        let ctx = ResponseDecodingContext(decoder: JSONDecoder(), envelope: envelope)
        let user = try DecodableResponseDecoding<User>().decode(
            response(#"{"code":"SUCCESS","result":{"payload":{"id":3,"name":"c"}}}"#), context: ctx
        )
        XCTAssertEqual(user.id, 3)
        let failure = decodeError(User.self, response(#"{"code":"E42","msg":"nope"}"#), envelope: envelope)
        XCTAssertEqual(failure?.message, "envelope status \"E42\": nope")
    }

    func testKeyPath() throws {
        let users = try DecodableResponseDecoding<[User]>(keyPath: "page.items").decode(
            response(#"{"page":{"items":[{"id":1,"name":"a"}]}}"#), context: context
        )
        XCTAssertEqual(users.count, 1)
        let first = try DecodableResponseDecoding<User>(keyPath: "page.items.0").decode(
            response(#"{"page":{"items":[{"id":1,"name":"a"}]}}"#), context: context
        )
        XCTAssertEqual(first.name, "a")
        XCTAssertEqual(decodeError(User.self, response(#"{"page":{}}"#), keyPath: "page.items")?.code, .decodeError)
    }

    func testStringDataVoidAndJSONValue() throws {
        XCTAssertEqual(try StringResponseDecoding().decode(response("héllo"), context: context), "héllo")
        XCTAssertThrowsError(try StringResponseDecoding().decode(HTTPResponse(statusCode: 200, body: Data([0xC3, 0x28])), context: context)) {
            XCTAssertEqual(($0 as? HTTPClientError)?.code, .decodeError)
        }
        XCTAssertEqual(try DataResponseDecoding().decode(HTTPResponse(statusCode: 200, body: Data([1])), context: context), Data([1]))
        XCTAssertNoThrow(try IgnoringResponseDecoding().decode(HTTPResponse(statusCode: 200, body: Data([0xFF])), context: context))
        let json = try DecodableResponseDecoding<JSONValue>().decode(response(#"{"a":[1,2.5,"x",true,null]}"#), context: context)
        XCTAssertEqual(json["a"]?[0], .int(1))
        XCTAssertEqual(json["a"]?[1], .double(2.5))
        XCTAssertEqual(json["a"]?[3], .bool(true))
        XCTAssertEqual(json["a"]?[4], .null)
        XCTAssertEqual(json.description, #"{"a":[1,2.5,"x",true,null]}"#)
    }
}
