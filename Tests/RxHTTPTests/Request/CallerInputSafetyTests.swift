import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// What a caller can hand the client: nested parameters, values with no text form, paths that
/// climb out of the base path, absurd time intervals. Each is a typed error or a documented clamp.
final class CallerInputSafetyTests: LoopbackClientTestCase {
    private func nestedArrays(depth: Int) -> Any {
        var value: Any = 1
        for _ in 0..<depth { value = [value] }
        return value
    }

    private func nestedDictionaries(depth: Int) -> Any {
        var value: Any = 1
        for _ in 0..<depth { value = ["k": value] as [String: Any] }
        return value
    }

    private func failureOf(path: String = "/p", method: HTTPMethod, _ parameters: [String: Any?], encoding: ParameterEncoding = .automatic) -> HTTPClientError? {
        server.route(.any, "/p", .json("{}"))
        let single: Single<JSONValue> = makeClient().rx.requestObject(path: path, method: method, parameters: parameters, encoding: encoding)
        return failure(result(of: single))
    }

    // MARK: Depth

    func testDeeplyNestedParametersFailBeforeAnythingIsSent() {
        for (name, deep) in [("arrays", nestedArrays(depth: 10_000)), ("dictionaries", nestedDictionaries(depth: 10_000))] {
            for (method, encoding) in [(HTTPMethod.get, ParameterEncoding.automatic), (.post, .automatic), (.post, .form)] {
                let error = failureOf(method: method, ["deep": deep], encoding: encoding)
                XCTAssertEqual(error?.code, .invalidRequest, "\(name) \(method) \(encoding)")
                XCTAssertEqual(error?.phase, .notSent)
                XCTAssertTrue(error?.message?.contains("deeper than 64") ?? false, String(describing: error))
            }
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testNestingUpToTheLimitIsSent() {
        server.route(.any, "/p", .json("{}"))
        // "deep" itself is level 1: 63 more arrays reach level 64.
        let single: Single<JSONValue> = makeClient().rx.requestObject(path: "/p", method: .post, parameters: ["deep": nestedArrays(depth: 63)])
        XCTAssertNotNil(success(result(of: single)))
        XCTAssertEqual(failureOf(method: .post, ["deep": nestedArrays(depth: 64)])?.code, .invalidRequest)
    }

    func testDeeplyNestedOptionalsAreBounded() {
        var value: Any = 1
        for _ in 0..<200 { value = Optional(value) as Any }
        XCTAssertNil(ParameterValues.unwrap(value))
        XCTAssertEqual(ParameterValues.unwrap(Optional(Optional(5)) as Any) as? Int, 5)
    }

    // MARK: Values

    func testNonFiniteNumbersAreRefusedOnEveryPath() {
        for value: Any in [Double.nan, Double.infinity, -Double.infinity, Float.nan, Decimal.nan] {
            for (method, encoding) in [(HTTPMethod.get, ParameterEncoding.automatic), (.post, .json), (.post, .form)] {
                let error = failureOf(method: method, ["x": value], encoding: encoding)
                XCTAssertEqual(error?.code, .invalidRequest, "\(value) \(method) \(encoding)")
            }
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testClosuresAndObjectsAreRefusedWithoutTheirDescription() {
        let closure: () -> Void = {}
        for value: Any in [closure, NSObject(), DispatchQueue(label: "q")] {
            for (method, encoding) in [(HTTPMethod.get, ParameterEncoding.automatic), (.post, .json), (.post, .form)] {
                let error = failureOf(method: method, ["f": value], encoding: encoding)
                XCTAssertEqual(error?.code, .invalidRequest, "\(type(of: value)) \(method)")
                XCTAssertFalse(String(describing: error).contains("0x"), "a heap address leaked: \(String(describing: error))")
            }
        }
        XCTAssertEqual(server.requests.count, 0)
    }

    func testOrdinaryScalarsStillGoOut() throws {
        enum Sort: String { case asc }
        server.route(.get, "/p", .json("{}"))
        let date = Date(timeIntervalSince1970: 0)
        let single: Single<JSONValue> = makeClient().rx.requestObject(path: "/p", parameters: [
            "s": "x y", "i": 7, "d": 1.5, "b": true, "u": try XCTUnwrap(URL(string: "https://e.x/a")), "sort": Sort.asc,
            "when": date, "n": NSNumber(value: 3), "big": UInt64.max, "c": Character("z"),
        ])
        XCTAssertNotNil(success(result(of: single)))
        let query = try XCTUnwrap(server.requests.last?.query)
        for part in ["s=x%20y", "i=7", "d=1.5", "b=true", "sort=asc", "when=1970-01-01T00%3A00%3A00Z", "n=3", "big=18446744073709551615", "c=z"] {
            XCTAssertTrue(query.contains(part), "\(part) missing from \(query)")
        }
    }

    // MARK: Paths

    func testDotSegmentsNeverLeaveTheBasePath() {
        let client = HTTPClient(baseURL: server.url("/api/v1"))
        for path in ["/req/../../../etc/passwd", "../x", "/a/./b", "/a/%2e%2E/b", "/a/.%2E/b", "/a/%2E/b", "..", "/a/" + HTTPClient.escapedPathSegment("..")] {
            let single: Single<JSONValue> = client.rx.requestObject(path: path)
            let error = failure(result(of: single))
            XCTAssertEqual(error?.code, .invalidRequest, path)
        }
        XCTAssertEqual(server.requests.count, 0)
        // Dots inside a segment are ordinary characters.
        server.route(.get, "/api/v1/a..b/.hidden/x.", .json("{}"))
        let single: Single<JSONValue> = client.rx.requestObject(path: "/a..b/.hidden/x.")
        XCTAssertNotNil(success(result(of: single)))
    }

    // MARK: Time

    func testAbsurdTimeoutsNeitherTrapNorHang() throws {
        server.route(.get, "/x", .text("x"))
        for timeout in [1e300, .infinity, Double.greatestFiniteMagnitude, 9.3e15] {
            let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: timeout))
            XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/x")))), "x", "client timeout \(timeout)")
            XCTAssertEqual(success(result(of: makeClient().rx.request(RawText(path: "/x", timeout: timeout)))), "x", "request timeout \(timeout)")
        }
    }

    func testInvalidTimeoutsAreTypedErrorsOrTheDefault() {
        server.route(.get, "/x", .text("x"))
        for bad in [Double.nan, 0, -1, -Double.infinity] {
            let error = failure(result(of: makeClient().rx.request(RawText(path: "/x", timeout: bad))))
            XCTAssertEqual(error?.code, .invalidRequest, "\(bad)")
            XCTAssertEqual(HTTPClient.Configuration(timeout: bad).timeout, 15, "\(bad)")
        }
        XCTAssertEqual(HTTPClient.Configuration(timeout: 1e300).timeout, 1e9)
        XCTAssertEqual(server.requests.count, 0)
    }

    /// A NaN time-out once removed the whole-request deadline: a server that never answered kept
    /// the caller waiting. Now it is refused before sending.
    func testANaNTimeoutDoesNotRemoveTheDeadline() {
        server.route(.get, "/never", LoopbackHTTPResponse.text("late").delayed(by: 5))
        let started = Date()
        XCTAssertEqual(failure(result(of: makeClient().rx.request(RawText(path: "/never", timeout: .nan))))?.code, .invalidRequest)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
    }

    func testARequestTimeoutHoldsInBothDirections() {
        server.route(.get, "/slow", LoopbackHTTPResponse.text("done").delayed(by: 0.4))
        let shortClient = makeClient(timeout: 0.2)
        XCTAssertEqual(success(result(of: shortClient.rx.request(RawText(path: "/slow", timeout: 0.8)))), "done")
        let longClient = makeClient(timeout: 3)
        let started = Date()
        XCTAssertEqual(failure(result(of: longClient.rx.request(RawText(path: "/slow", timeout: 0.15))))?.code, .timedOut)
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.35)
    }

    func testRetryIntervalsAreClamped() {
        let policy = RetryPolicy(maxAttempts: 5, delay: .constant(time: 1e300), maxRetryAfter: .infinity)
        XCTAssertEqual(policy.maxRetryAfter, 1e9)
        XCTAssertEqual(policy.delay(beforeRetry: 1, after: HTTPClientError(.transport)), 1e9)
        XCTAssertEqual(RetryPolicy(delay: .constant(time: .nan)).delay(beforeRetry: 1, after: HTTPClientError(.transport)), 0)
        XCTAssertEqual(RetryPolicy(delay: .constant(time: -4)).delay(beforeRetry: 1, after: HTTPClientError(.transport)), 0)
        XCTAssertEqual(RetryPolicy(maxAttempts: .max).maxAttempts, 1_000)
        XCTAssertEqual(RetryPolicy(maxAttempts: -3).maxAttempts, 1)
        server.route(.get, "/x", .text("x"))
        for deadline in [Double.nan, 0, -5] {
            let client = HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: RetryPolicy(deadline: deadline)))
            XCTAssertEqual(failure(result(of: client.rx.request(RawText(path: "/x"))))?.code, .invalidRequest, "\(deadline)")
        }
        for deadline in [Double.infinity, 1e300] {
            let client = HTTPClient(baseURL: server.baseURL, configuration: .init(retryPolicy: RetryPolicy(deadline: deadline)))
            XCTAssertEqual(success(result(of: client.rx.request(RawText(path: "/x")))), "x", "\(deadline)")
        }
    }
}
