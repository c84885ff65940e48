import Foundation
@testable import RxHTTP
import XCTest

final class RedactionTests: XCTestCase {
    func testRedactsTokenLikeQueryParameters() throws {
        let url = try XCTUnwrap(URL(string: "https://h.test/p?access_token=a1&page=2&api_key=k&Password=p&refreshToken=r&q=token#top"))
        let text = Redaction.redactedURLString(url, queryNames: Redaction.defaultQueryNames)
        XCTAssertEqual(text, "https://h.test/p?access_token=<redacted>&page=2&api_key=<redacted>&Password=<redacted>&refreshToken=<redacted>&q=token#top")
    }

    func testRedactsURLPasswords() throws {
        let url = try XCTUnwrap(URL(string: "https://user:hunter2@h.test/"))
        XCTAssertEqual(Redaction.redactedURLString(url, queryNames: []), "https://user:<redacted>@h.test/")
    }

    func testRedactsSensitiveHeaders() {
        let headers = Redaction.redactedHeaders(
            ["authorization": "Bearer x", "Cookie": "s=1", "Set-Cookie": "s=2", "Proxy-Authorization": "p", "Accept": "*/*"],
            names: Redaction.defaultHeaderNames
        )
        XCTAssertEqual(headers.map { "\($0.0): \($0.1)" }, [
            "Accept: */*", "authorization: <redacted>", "Cookie: <redacted>", "Proxy-Authorization: <redacted>", "Set-Cookie: <redacted>",
        ])
    }
}
