import Foundation
@_spi(TransportSupport) @testable import RxHTTP
import XCTest

/// `RedirectPolicy.followUp`, which a transport that follows redirects itself asks: the next request
/// by URLSession's method rules, then the policy's decision.
final class RedirectFollowUpTests: XCTestCase {
    private let current = URL(string: "http://127.0.0.1:8080/from")!

    private func post() -> HTTPTransportRequest {
        var request = HTTPTransportRequest(url: current)
        request.httpMethod = "POST"
        request.httpBody = Data("payload".utf8)
        request.headers = HTTPHeaders(["Content-Type": "text/plain", "Content-Length": "7", "Authorization": "Bearer t"])
        return request
    }

    private func next(_ status: Int, _ request: HTTPTransportRequest, location: String? = "/to") -> HTTPTransportRequest? {
        if case .follow(let next) = RedirectPolicy.follow.followUp(
            to: request, statusCode: status, location: location, current: current, hopsSoFar: 0, credentialHeaderNames: []
        ) {
            return next
        }
        return nil
    }

    func testPostBecomesAGetWithoutBodyOn301302And303() throws {
        for status in [301, 302, 303] {
            let followed = try XCTUnwrap(next(status, post()), "\(status)")
            XCTAssertEqual(followed.httpMethod, "GET", "\(status)")
            XCTAssertNil(followed.httpBody, "\(status)")
            XCTAssertNil(followed.value(forHTTPHeaderField: "Content-Type"), "\(status)")
            XCTAssertNil(followed.value(forHTTPHeaderField: "Content-Length"), "\(status)")
            XCTAssertEqual(followed.url.absoluteString, "http://127.0.0.1:8080/to")
            XCTAssertEqual(followed.value(forHTTPHeaderField: "Authorization"), "Bearer t", "same origin keeps credentials")
        }
    }

    func testTemporaryAndPermanentRedirectsKeepMethodAndBody() throws {
        for status in [307, 308] {
            let followed = try XCTUnwrap(next(status, post()), "\(status)")
            XCTAssertEqual(followed.httpMethod, "POST")
            XCTAssertEqual(followed.httpBody, Data("payload".utf8))
        }
    }

    func testOnlyA303ChangesOtherMethodsAndHeadStaysHead() throws {
        var put = post()
        put.httpMethod = "PUT"
        XCTAssertEqual(try XCTUnwrap(next(302, put)).httpMethod, "PUT")
        XCTAssertEqual(try XCTUnwrap(next(303, put)).httpMethod, "GET")
        var head = HTTPTransportRequest(url: current)
        head.httpMethod = "HEAD"
        XCTAssertEqual(try XCTUnwrap(next(303, head)).httpMethod, "HEAD")
    }

    func testOtherStatusesAndMissingLocationsAreTheResponse() {
        for status in [300, 304, 305, 306, 399] {
            guard case .deliverResponse = RedirectPolicy.follow.followUp(
                to: post(), statusCode: status, location: "/to", current: current, hopsSoFar: 0, credentialHeaderNames: []
            ) else { return XCTFail("\(status)") }
        }
        XCTAssertNil(next(302, post(), location: nil))
    }

    func testTheDecisionIsThePolicys() {
        guard case .refuse(let error) = RedirectPolicy.follow.followUp(
            to: post(), statusCode: 302, location: "file:///etc/passwd", current: current, hopsSoFar: 0, credentialHeaderNames: []
        ) else { return XCTFail("followed a file: redirect") }
        XCTAssertEqual(error.code, .redirectRefused)
        let away = next(307, post(), location: "http://localhost:9/x")
        XCTAssertNil(away?.value(forHTTPHeaderField: "Authorization"), "another origin drops credentials")
    }
}
