import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

final class RedactionTests: XCTestCase {
    func testRedactsTokenLikeQueryParameters() throws {
        let url = try XCTUnwrap(URL(string: "https://h.test/p?access_token=a1&page=2&api_key=k&Password=p&refreshToken=r&q=token#top"))
        let text = Redaction.standard.url(url)
        XCTAssertEqual(text, "https://h.test/p?access_token=<redacted>&page=2&api_key=<redacted>&Password=<redacted>&refreshToken=<redacted>&q=token#top")
    }

    func testRedactsURLPasswords() throws {
        let url = try XCTUnwrap(URL(string: "https://user:hunter2@h.test/"))
        XCTAssertEqual(Redaction.standard.url(url), "https://user:<redacted>@h.test/")
    }

    func testRedactsSensitiveHeaders() {
        let headers = Redaction.standard.headers(
            ["authorization": "Bearer x", "Cookie": "s=1", "Set-Cookie": "s=2", "Proxy-Authorization": "p", "Accept": "*/*"]
        )
        XCTAssertEqual(headers.map { "\($0.0): \($0.1)" }, [
            "Accept: */*", "authorization: <redacted>", "Cookie: <redacted>", "Proxy-Authorization: <redacted>", "Set-Cookie: <redacted>",
        ])
    }
}

/// Redaction by rule: names nobody listed, URLs wherever printed, bodies, wrapped system errors.
final class RedactionRuleTests: LoopbackClientTestCase {
    func testSensitiveNamesAreFoundByRule() {
        let rules = Redaction.standard
        for name in ["X-Refresh-Token", "X-Api-Token", "X-Amz-Security-Token", "Private-Token", "X-Session-Id",
                     "Client-Secret", "X-Password", "db_passwd", "X-Auth", "Proxy-Authorization", "X-Signature",
                     "X-Amz-Credential", "Set-Cookie", "apikey", "x-goog-api-key", "ACCESS_TOKEN", "refresh%5Ftoken"] {
            XCTAssertTrue(rules.isSensitive(name), name)
        }
        for name in ["Accept", "Content-Type", "User-Agent", "page", "Idempotency-Key", "X-Request-Id", "Location"] {
            XCTAssertFalse(rules.isSensitive(name), name)
        }
        XCTAssertTrue(Redaction(additionalNames: ["X-Tenant"]).isSensitive("x-tenant"))
    }

    func testURLsAreRedactedInQueriesFragmentsAndRelativeReferences() {
        let rules = Redaction.standard
        XCTAssertEqual(rules.urlString("/next?access_token=t0k&page=2"), "/next?access_token=<redacted>&page=2")
        XCTAssertEqual(rules.urlString("https://h/cb#access_token=t0k&state=s"), "https://h/cb#access_token=<redacted>&state=s")
        XCTAssertEqual(rules.urlString("https://u:pw@h/?X-Amz-Signature=abc&X-Amz-Credential=c"),
                       "https://u:<redacted>@h/?X-Amz-Signature=<redacted>&X-Amz-Credential=<redacted>")
        let headers = rules.headers(["Location": "https://h/x?token=t0k", "X-Next": "/p?session=s3", "Accept": "*/*"])
        XCTAssertEqual(headers.map { "\($0.0): \($0.1)" }, ["Accept: */*", "Location: https://h/x?token=<redacted>", "X-Next: /p?session=<redacted>"])
    }

    func testBodiesAreRedactedByField() {
        let rules = Redaction.standard
        let form = rules.body(Data("grant_type=refresh_token&refresh_token=r3f&client_secret=c5&scope=a+b".utf8),
                              contentType: "application/x-www-form-urlencoded", limit: 1_000)
        XCTAssertEqual(form, "grant_type=refresh_token&refresh_token=<redacted>&client_secret=<redacted>&scope=a+b")
        let json = rules.body(Data(#"{"access_token":"a1","user":{"password":"pw","name":"n"},"list":[{"api_key":"k"}]}"#.utf8),
                              contentType: "application/json", limit: 1_000)
        for secret in ["a1", "\"pw\"", "\"k\""] {
            XCTAssertFalse(json.contains(secret), json)
        }
        XCTAssertTrue(json.contains(#""name":"n""#), json)
        XCTAssertEqual(rules.body(Data([0xFF, 0x00]), contentType: "image/png", limit: 10), "2 bytes of image/png")
    }

    func testTheLoggerLeaksNoSecretAnywhere() throws {
        server.route(.post, "/login", LoopbackHTTPResponse.json(#"{"access_token":"resp-tok","expires_in":60}"#)
            .withHeader("X-Refresh-Token", "resp-refresh").withHeader("Location", "/home?access_token=loc-tok"))
        let lines = LineCollector()
        let client = makeClient(plugins: [NetworkLoggerPlugin(logsHeaders: true, logsBodies: true, redactedHeaders: ["X-Tenant"], sink: lines.append)])
        let single: Single<JSONValue> = client.rx.requestObject(
            path: "/login?api_token=q-tok", method: .post,
            parameters: ["username": "ada", "password": "body-pw", "refresh_token": "body-refresh"], encoding: .form,
            headers: ["X-Api-Token": "hdr-api", "X-Amz-Security-Token": "hdr-amz", "Private-Token": "hdr-private",
                      "X-Tenant": "hdr-tenant", Idempotency.keyHeader: "key-123"]
        )
        XCTAssertNotNil(success(result(of: single)))
        let text = lines.lines.joined(separator: "\n")
        for secret in ["resp-tok", "resp-refresh", "loc-tok", "q-tok", "body-pw", "body-refresh", "hdr-api", "hdr-amz", "hdr-private", "hdr-tenant"] {
            XCTAssertFalse(text.contains(secret), "\(secret) leaked:\n\(text)")
        }
        XCTAssertTrue(text.contains("username=ada"), text)
        XCTAssertTrue(text.contains("Idempotency-Key: key-123"), text)
        XCTAssertTrue(text.contains("Location: /home?access_token=<redacted>"), text)
    }

    /// The underlying system error of a refused connection named the full URL, token included.
    func testWrappedSystemErrorsAreRedacted() throws {
        let port = server.port
        server.stop()
        let client = HTTPClient(baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:\(port)")))
        let single: Single<JSONValue> = client.rx.requestObject(path: "/x?token=u-tok&sig=u-sig", parameters: ["access_token": "p-tok"])
        let error = try XCTUnwrap(failure(result(of: single)))
        XCTAssertEqual(error.code, .transport)
        XCTAssertEqual(error.phase, .notSent)
        let underlying = try XCTUnwrap(error.underlying)
        for text in [String(describing: error), String(describing: underlying), String(reflecting: underlying),
                     (underlying as NSError).localizedDescription, "\((underlying as NSError).userInfo)"] {
            for secret in ["u-tok", "u-sig", "p-tok"] {
                XCTAssertFalse(text.contains(secret), "\(secret) leaked: \(text)")
            }
        }
        let urlError = try XCTUnwrap(underlying as? URLError)
        XCTAssertEqual(urlError.code, .cannotConnectToHost)
    }
}

/// What redaction leaves alone: what cannot be a secret.
final class RedactionKeepsWhatIsNotSecretTests: XCTestCase {
    func testCORSAndChallengeHeadersAreNotRedacted() {
        let headers = Redaction.standard.headers([
            "Access-Control-Allow-Credentials": "true",
            "Access-Control-Allow-Headers": "Authorization, Content-Type",
            "WWW-Authenticate": #"Bearer error="invalid_token""#,
            "Authorization": "Bearer s3cret",
            "X-Auth-Retries": "3",
            "X-Session-Id": "abc123",
        ])
        let values = Dictionary(uniqueKeysWithValues: headers)
        XCTAssertEqual(values["Access-Control-Allow-Credentials"], "true")
        XCTAssertEqual(values["Access-Control-Allow-Headers"], "Authorization, Content-Type")
        XCTAssertEqual(values["WWW-Authenticate"], #"Bearer error="invalid_token""#)
        XCTAssertEqual(values["X-Auth-Retries"], "3", "a number under a name caught by a fragment is no secret")
        XCTAssertEqual(values["Authorization"], "<redacted>")
        XCTAssertEqual(values["X-Session-Id"], "<redacted>")
    }

    func testJSONBooleansAndNumbersUnderFragmentNamesStayButListedKeysAndStringsGo() throws {
        let body = #"{"authenticated":true,"session_count":4,"session":"s3cret","api_key":12345,"token_type":"bearer"}"#
        let text = try XCTUnwrap(Redaction.standard.json(Data(body.utf8)))
        XCTAssertTrue(text.contains(#""authenticated":true"#), text)
        XCTAssertTrue(text.contains(#""session_count":4"#), text)
        XCTAssertTrue(text.contains(#""session":"<redacted>""#), text)
        XCTAssertTrue(text.contains(#""api_key":"<redacted>""#), "a listed key is redacted even when numeric: \(text)")
        XCTAssertTrue(text.contains(#""token_type":"<redacted>""#), text)
    }
}
