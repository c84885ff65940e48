import Foundation
import RxCore
@_spi(TransportSupport) @testable import RxHTTP
import RxTesting
import XCTest

/// Redirects through URLSession between loopback servers: credentials stay on their origin, only
/// http(s) targets are followed, the policy is the client's, and disposing mid-redirect is safe.
final class RedirectSafetyTests: LoopbackClientTestCase {
    private let other = LoopbackHTTPServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        try other.start()
    }

    override func tearDown() {
        other.stop()
        super.tearDown()
    }

    private let secrets = [
        "Authorization": "Bearer s3cret", "Cookie": "sid=c00kie", "Proxy-Authorization": "Basic cHJveHk=",
        "X-Api-Key": "k3y",
    ]

    private func client(_ redirectPolicy: RedirectPolicy = .follow) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, redirectPolicy: redirectPolicy))
    }

    func testCredentialsAreDroppedWhenARedirectChangesOrigin() throws {
        other.route(.get, "/landing", .json(#"{"id":1,"name":"there"}"#))
        // Same host, another port: another origin.
        server.route(.get, "/jump", LoopbackHTTPResponse.status(302).withHeader("Location", other.url("/landing").absoluteString))
        let single: Single<User> = client().rx.requestObject(path: "/jump", headers: secrets)
        XCTAssertEqual(success(result(of: single))?.name, "there")
        let landed = try XCTUnwrap(other.requests.last)
        XCTAssertNil(landed.header("Authorization"))
        XCTAssertNil(landed.header("Cookie"))
        XCTAssertNil(landed.header("Proxy-Authorization"))
        // Not a credential header by the redirect rule: kept.
        XCTAssertEqual(landed.header("X-Api-Key"), "k3y")
        XCTAssertEqual(server.requests.last?.header("Authorization"), "Bearer s3cret")
    }

    func testCredentialsStayOnTheSameOrigin() throws {
        server.route(.get, "/landing", .json(#"{"id":1,"name":"here"}"#))
        server.route(.get, "/jump", LoopbackHTTPResponse.status(301).withHeader("Location", "/landing"))
        let single: Single<User> = client().rx.requestObject(path: "/jump", headers: secrets)
        XCTAssertEqual(success(result(of: single))?.name, "here")
        XCTAssertEqual(server.requests(to: "/landing").last?.header("Authorization"), "Bearer s3cret")
    }

    func testOnlyTheClientsOwnOptionsSayItsHeadersWereChecked() {
        // A transport handed a request by anyone else checks its headers itself.
        XCTAssertFalse(HTTPTransportOptions().headersAreChecked)
        XCTAssertFalse(HTTPTransportOptions.standard.headersAreChecked)
        XCTAssertFalse(HTTPTransportOptions(redirectPolicy: .none, maxResponseBodySize: 1).headersAreChecked)
        XCTAssertTrue(HTTPClient(baseURL: URL(string: "https://h.test")!, transport: StubTransport()).transportOptions.headersAreChecked)
    }

    func testTransportOptionsNameFurtherCredentialHeaders() throws {
        other.route(.get, "/landing", .text("ok"))
        server.route(.get, "/jump", LoopbackHTTPResponse.status(307).withHeader("Location", other.url("/landing").absoluteString))
        let transport = URLSessionTransport()
        let box = ResultBox<HTTPResponse>()
        let done = expectation(description: "response")
        var request = HTTPTransportRequest(url: server.url("/jump"))
        request.headers = HTTPHeaders(secrets)
        let exchange = transport.send(request, options: HTTPTransportOptions(credentialHeaderNames: ["X-Api-Key"])) { result in
            box.set(result.mapError { URLErrorClassification.classify($0, url: nil) })
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        exchange.dispose()
        XCTAssertEqual(success(box.value)?.statusCode, 200)
        XCTAssertNil(other.requests.last?.header("X-Api-Key"))
    }

    func testRedirectsToOtherSchemesAreRefusedAndNamed() {
        for target in ["file:///etc/passwd", "data:text/plain,hello", "ftp://127.0.0.1/x", "gopher://h/"] {
            server.route(.get, "/evil", LoopbackHTTPResponse.status(302).withHeader("Location", target))
            let single: Single<String> = client().rx.request(RawText(path: "/evil"))
            let error = failure(result(of: single))
            XCTAssertEqual(error?.code, .redirectRefused, target)
            XCTAssertEqual(error?.phase, .sentWithoutResponse, target)
            XCTAssertTrue(error?.message?.contains(target) ?? false, "\(target): \(String(describing: error))")
        }
        // Nothing was fetched from the server under the mangled path URLSession would have built.
        XCTAssertTrue(server.requests.allSatisfy { $0.path == "/evil" }, "\(server.requests.map(\.path))")
    }

    func testARefusedTargetIsRedactedInTheError() {
        server.route(.get, "/evil", LoopbackHTTPResponse.status(302).withHeader("Location", "file:///x?access_token=t0ken"))
        let error = failure(result(of: client().rx.request(RawText(path: "/evil"))))
        XCTAssertEqual(error?.code, .redirectRefused)
        XCTAssertFalse(String(describing: error).contains("t0ken"), String(describing: error))
    }

    func testSameOriginPolicyRefusesAnotherOrigin() {
        other.route(.get, "/landing", .text("x"))
        server.route(.get, "/jump", LoopbackHTTPResponse.status(302).withHeader("Location", other.url("/landing").absoluteString))
        let error = failure(result(of: client(.sameOrigin).rx.request(RawText(path: "/jump"))))
        XCTAssertEqual(error?.code, .redirectRefused)
        XCTAssertEqual(other.requests.count, 0)
    }

    func testNoRedirectPolicyReturnsTheRedirectItself() {
        server.route(.get, "/jump", LoopbackHTTPResponse.text("moved", status: 302).withHeader("Location", "/landing"))
        server.route(.get, "/landing", .text("x"))
        let error = failure(result(of: client(.none).rx.request(RawText(path: "/jump"))))
        XCTAssertEqual(error?.code, .unacceptableStatusCode)
        XCTAssertEqual(error?.statusCode, 302)
        XCTAssertEqual(error?.body, Data("moved".utf8))
        XCTAssertEqual(server.requests(to: "/landing").count, 0)
    }

    func testTooManyRedirectsAreRefused() {
        server.route(.get, "/loop", LoopbackHTTPResponse.status(302).withHeader("Location", "/loop"))
        let error = failure(result(of: client(RedirectPolicy(maxRedirects: 3)).rx.request(RawText(path: "/loop"))))
        XCTAssertEqual(error?.code, .redirectRefused)
        XCTAssertEqual(server.requests(to: "/loop").count, 4)
    }

    func testARedirectWithoutLocationIsTheResponseItIs() {
        server.route(.get, "/nowhere", LoopbackHTTPResponse.text("no location", status: 302))
        let error = failure(result(of: client().rx.request(RawText(path: "/nowhere"))))
        XCTAssertEqual(error?.code, .unacceptableStatusCode)
        XCTAssertEqual(error?.statusCode, 302)
        XCTAssertEqual(error?.phase, .responded)
    }

    func testHTTPSDowngradeAndOriginRulesAsDecided() throws {
        let https = try XCTUnwrap(URL(string: "https://api.test/a"))
        let proposed = HTTPTransportRequest(url: https)
        let policy = RedirectPolicy.follow
        guard case .refuse(let downgrade) = policy.decide(
            location: "http://api.test/b", current: https, proposed: proposed, hopsSoFar: 0, credentialHeaderNames: []
        ) else { return XCTFail("an https → http redirect was followed") }
        XCTAssertEqual(downgrade.code, .redirectRefused)
        guard case .follow = RedirectPolicy(allowsHTTPSDowngrade: true).decide(
            location: "http://api.test/b", current: https, proposed: proposed, hopsSoFar: 0, credentialHeaderNames: []
        ) else { return XCTFail("an allowed downgrade was refused") }
        // Default ports count as the same origin; another port does not.
        XCTAssertEqual(Origin(try XCTUnwrap(URL(string: "https://API.test:443/x"))), Origin(https))
        XCTAssertNotEqual(Origin(try XCTUnwrap(URL(string: "https://api.test:8443/x"))), Origin(https))
        XCTAssertNotEqual(Origin(try XCTUnwrap(URL(string: "http://api.test/x"))), Origin(https))
    }

    /// Disposing while URLSession waits for the redirect decision used to crash the process
    /// (Foundation: "Received callback for HTTP redirection, but we're not waiting for it").
    func testDisposingDuringRedirectsNeverCrashes() {
        server.route(.get, "/hop", LoopbackHTTPResponse.status(302).withHeader("Location", "/hop2"))
        server.route(.get, "/hop2", LoopbackHTTPResponse.status(307).withHeader("Location", "/hop"))
        let client = client(RedirectPolicy(maxRedirects: 50))
        for round in 0..<120 {
            let single: Single<String> = client.rx.request(RawText(path: "/hop"))
            let subscription = single.subscribe(onSuccess: { _ in }, onFailure: { _ in })
            // Spread the disposals over the whole exchange: before, between and during redirects.
            if round % 3 != 0 {
                Thread.sleep(forTimeInterval: Double(round % 7) * 0.001)
            }
            subscription.dispose()
        }
        // The client still works.
        server.route(.get, "/fine", .text("fine"))
        XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/fine")))), "fine")
    }
}

/// A request whose body is read as text.
struct RawText: Request {
    typealias Response = String
    var path: String
    var method: HTTPMethod = .get
    var timeout: TimeInterval?
    var idempotency: Idempotency = .byMethod
    var headers: [String: String] = [:]
}
