// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

/// Redirects, run against every transport between two loopback servers: the client's policy
/// decides, credentials stay on their origin, methods change as URLSession changes them (307
/// keeps its body only over AsyncHTTPClient: URLSession on Linux drops it).
final class TransportRedirectTests: TransportTestCase {
    private let other = LoopbackHTTPServer()
    private let secrets = ["Authorization": "Bearer s3cret", "Cookie": "sid=c00kie", "Proxy-Authorization": "Basic cHJveHk=", "X-Api-Key": "k3y"]

    override func setUpWithError() throws {
        try super.setUpWithError()
        try other.start()
    }

    override func tearDown() {
        other.stop()
        super.tearDown()
    }

    func testCredentialsStayOnTheirOrigin() throws {
        other.route(.get, "/landing", .text("there"))
        server.route(.get, "/landing", .text("here"))
        server.route(.get, "/away", LoopbackHTTPResponse.status(302).withHeader("Location", other.url("/landing").absoluteString))
        server.route(.get, "/near", LoopbackHTTPResponse.status(301).withHeader("Location", "/landing"))
        for kind in TransportKind.allCases {
            let client = makeClient(kind)
            XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/away", headers: secrets))), kind), "there", "\(kind)")
            let landed = try XCTUnwrap(other.requests.last, "\(kind)")
            XCTAssertNil(landed.header("Authorization"), "\(kind)")
            XCTAssertNil(landed.header("Cookie"), "\(kind)")
            XCTAssertNil(landed.header("Proxy-Authorization"), "\(kind)")
            XCTAssertEqual(landed.header("X-Api-Key"), "k3y", "\(kind)")
            XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/near", headers: secrets))), kind), "here", "\(kind)")
            XCTAssertEqual(server.requests(to: "/landing").last?.header("Authorization"), "Bearer s3cret", "\(kind)")
        }
    }

    func testOnlyHTTPTargetsAreFollowed() {
        for kind in TransportKind.allCases {
            for target in ["file:///etc/passwd", "data:text/plain,hello", "ftp://127.0.0.1/x"] {
                server.route(.get, "/evil", LoopbackHTTPResponse.status(302).withHeader("Location", target))
                let error = failure(result(of: makeClient(kind).rx.request(RawText(path: "/evil"))), kind)
                XCTAssertEqual(error?.code, .redirectRefused, "\(kind) \(target)")
                XCTAssertEqual(error?.phase, .sentWithoutResponse, "\(kind) \(target)")
            }
        }
        XCTAssertTrue(server.requests.allSatisfy { $0.path == "/evil" })
    }

    func testMethodsChangeAsURLSessionChangesThem() throws {
        server.route(.get, "/landing", .text("got"))
        server.route(.post, "/landing", .text("posted"))
        server.route(.post, "/see-other", LoopbackHTTPResponse.status(303).withHeader("Location", "/landing"))
        server.route(.post, "/temporary", LoopbackHTTPResponse.status(307).withHeader("Location", "/landing"))
        for kind in TransportKind.allCases {
            server.resetRequests()
            let client = makeClient(kind)
            let body = RawBody(Data("payload".utf8), contentType: "text/plain")
            XCTAssertEqual(success(result(of: client.rx.request(Raw(path: "/see-other", method: .post, body: body))), kind)?.body, Data("got".utf8), "\(kind)")
            XCTAssertEqual(server.requests(to: "/landing").last?.body, Data(), "\(kind): 303 sends no body")
            XCTAssertEqual(success(result(of: client.rx.request(Raw(path: "/temporary", method: .post, body: body))), kind)?.body, Data("posted".utf8), "\(kind)")
            // 307 keeps the method and, per RFC 9110, the body; URLSession on Linux drops the body
            // (a Foundation limitation the article "Choosing a transport" states).
            let expected = kind == .urlSession ? Data() : Data("payload".utf8)
            XCTAssertEqual(server.requests(to: "/landing").last?.body, expected, "\(kind): 307's body")
        }
    }

    func testThePolicyDecides() {
        server.route(.get, "/jump", LoopbackHTTPResponse.text("moved", status: 302).withHeader("Location", "/landing"))
        server.route(.get, "/landing", .text("x"))
        server.route(.get, "/loop", LoopbackHTTPResponse.status(302).withHeader("Location", "/loop"))
        other.route(.get, "/landing", .text("x"))
        server.route(.get, "/away", LoopbackHTTPResponse.status(302).withHeader("Location", other.url("/landing").absoluteString))
        for kind in TransportKind.allCases {
            server.resetRequests()
            let none = failure(result(of: makeClient(kind, redirectPolicy: .none).rx.request(RawText(path: "/jump"))), kind)
            XCTAssertEqual(none?.statusCode, 302, "\(kind)")
            XCTAssertEqual(none?.body, Data("moved".utf8), "\(kind)")
            XCTAssertEqual(server.requests(to: "/landing").count, 0, "\(kind)")
            let loop = failure(result(of: makeClient(kind, redirectPolicy: RedirectPolicy(maxRedirects: 3)).rx.request(RawText(path: "/loop"))), kind)
            XCTAssertEqual(loop?.code, .redirectRefused, "\(kind)")
            XCTAssertEqual(server.requests(to: "/loop").count, 4, "\(kind)")
            let away = failure(result(of: makeClient(kind, redirectPolicy: .sameOrigin).rx.request(RawText(path: "/away"))), kind)
            XCTAssertEqual(away?.code, .redirectRefused, "\(kind)")
        }
        XCTAssertEqual(other.requests.count, 0)
    }

    func testDisposingDuringRedirectsIsSafe() {
        server.route(.get, "/loop", LoopbackHTTPResponse.status(302).withHeader("Location", "/loop"))
        for kind in TransportKind.allCases {
            let client = makeClient(kind)
            for _ in 0..<50 {
                let subscription = client.rx.request(RawText(path: "/loop")).subscribe(onSuccess: { _ in }, onFailure: { _ in })
                Thread.sleep(forTimeInterval: 0.001)
                subscription.dispose()
            }
        }
    }
}
#endif
