import Foundation
import RxCore
import RxHTTP
import XCTest

/// The rules of `RetryPolicy` and the `Retry-After`/`isTransient` helpers, without a network.
final class RetryPolicyTests: XCTestCase {
    private func status(_ code: Int, headers: [String: String]? = nil) -> HTTPClientError {
        HTTPClientError(.unacceptableStatusCode, statusCode: code, headers: headers)
    }

    func testTransientFailuresOfIdempotentMethodsAreRetriedByDefault() {
        let policy = RetryPolicy()
        XCTAssertTrue(policy.shouldRetry(status(503), method: .get))
        XCTAssertTrue(policy.shouldRetry(status(429), method: .put))
        XCTAssertTrue(policy.shouldRetry(HTTPClientError(.transport), method: .delete))
        XCTAssertTrue(policy.shouldRetry(HTTPClientError(.timedOut), method: .head))
        XCTAssertTrue(policy.shouldRetry(HTTPClientError(.timedOut), method: .options))
    }

    func testNonIdempotentMethodsPermanentFailuresAndCancellationAreNotRetried() {
        let policy = RetryPolicy(shouldRetry: { _ in true })
        XCTAssertFalse(policy.shouldRetry(status(503), method: .post))
        XCTAssertFalse(policy.shouldRetry(status(503), method: .patch))
        XCTAssertFalse(policy.shouldRetry(HTTPClientError(.cancelled), method: .get), "never a cancelled request")
        XCTAssertFalse(RetryPolicy().shouldRetry(status(404), method: .get))
        XCTAssertFalse(RetryPolicy().shouldRetry(HTTPClientError(.decodeError), method: .get))
    }

    func testACustomPredicateAndMethodSetReplaceTheDefaults() {
        let policy = RetryPolicy(retryableMethods: [.post], shouldRetry: { $0.statusCode == 409 })
        XCTAssertTrue(policy.shouldRetry(status(409), method: .post))
        XCTAssertFalse(policy.shouldRetry(status(503), method: .post))
        XCTAssertFalse(policy.shouldRetry(status(409), method: .get))
    }

    func testRetryAfterLengthensTheWaitOn429And503Only() {
        let policy = RetryPolicy(delay: .constant(time: 2))
        XCTAssertEqual(policy.delay(beforeRetry: 1, after: status(429, headers: ["Retry-After": "7"])), 7)
        XCTAssertEqual(policy.delay(beforeRetry: 1, after: status(503, headers: ["retry-after": "1"])), 2,
                       "a shorter Retry-After does not shorten the planned wait")
        XCTAssertEqual(policy.delay(beforeRetry: 1, after: status(500, headers: ["Retry-After": "7"])), 2)
        XCTAssertEqual(policy.delay(beforeRetry: 1, after: status(429)), 2)
    }

    func testRetryAfterIsCappedAndCanBeIgnored() {
        let capped = RetryPolicy(delay: .constant(time: 1), maxRetryAfter: 30)
        XCTAssertEqual(capped.delay(beforeRetry: 1, after: status(429, headers: ["Retry-After": "86400"])), 30)
        XCTAssertEqual(capped.delay(beforeRetry: 1, after: status(429, headers: ["Retry-After": String(repeating: "9", count: 400)])), 30)
        let ignoring = RetryPolicy(delay: .constant(time: 1), honorsRetryAfter: false)
        XCTAssertEqual(ignoring.delay(beforeRetry: 1, after: status(429, headers: ["Retry-After": "60"])), 1)
    }

    func testRetryAfterParsesSecondsAndHTTPDatesAndRejectsGarbage() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)  // Tue, 14 Nov 2023 22:13:20 GMT
        XCTAssertEqual(status(429, headers: ["Retry-After": " 120 "]).retryAfter(now: now), 120)
        XCTAssertEqual(status(429, headers: ["Retry-After": "Tue, 14 Nov 2023 22:14:20 GMT"]).retryAfter(now: now), 60)
        XCTAssertEqual(status(429, headers: ["Retry-After": "Tuesday, 14-Nov-23 22:13:50 GMT"]).retryAfter(now: now), 30)
        XCTAssertEqual(status(429, headers: ["Retry-After": "Mon, 13 Nov 2023 22:13:20 GMT"]).retryAfter(now: now), 0,
                       "a date in the past means now")
        XCTAssertNil(status(429, headers: ["Retry-After": "soon"]).retryAfter(now: now))
        XCTAssertNil(status(429, headers: ["Retry-After": "-5"]).retryAfter(now: now))
        XCTAssertNil(status(429, headers: ["Retry-After": ""]).retryAfter(now: now))
        XCTAssertNil(status(429).retryAfter(now: now))
    }

    func testJitterFromASeededSourceIsReproducible() {
        let first = RetryPolicy(delay: .constant(time: 4), jitter: .full, random: .seeded(9))
        let second = RetryPolicy(delay: .constant(time: 4), jitter: .full, random: .seeded(9))
        let a = (1...5).map { first.delay(beforeRetry: $0, after: status(500)) }
        let b = (1...5).map { second.delay(beforeRetry: $0, after: status(500)) }
        XCTAssertEqual(a, b)
        XCTAssertTrue(a.allSatisfy { (0...4).contains($0) })
    }

    func testNoneMeansOneAttemptAndAttemptsAreAtLeastOne() {
        XCTAssertEqual(RetryPolicy.none.maxAttempts, 1)
        XCTAssertEqual(RetryPolicy(maxAttempts: -3).maxAttempts, 1)
        XCTAssertEqual(HTTPClient.Configuration().retryPolicy.maxAttempts, 1, "no surprise retries by default")
    }

    func testRetryableRequestDefaultsToThreeAttemptsTwoSecondsApart() {
        struct Feed: RetryableRequest {
            typealias Response = String
            var path: String { "/feed" }
        }
        let policy = Feed().retryPolicy
        XCTAssertEqual(policy.maxAttempts, 3)
        XCTAssertEqual(policy.delay.make(1), 2)
        XCTAssertEqual(policy.delay.make(2), 2)
    }

    func testIsTransientOnAnyError() {
        let errors: [(Error, Bool)] = [
            (HTTPClientError(.unacceptableStatusCode, statusCode: 502), true),
            (HTTPClientError(.unacceptableStatusCode, statusCode: 401), false),
            (URLError(.timedOut), true),
            (URLError(.cannotConnectToHost), true),
            (URLError(.badURL), false),
            (RxError.timeout, true),
            (RxError.noElements, false),
            (CocoaError(.fileNoSuchFile), false),
        ]
        for (error, expected) in errors {
            XCTAssertEqual(error.isTransient, expected, "\(error)")
        }
    }
}

/// `Retry-After` dates parsed by hand: the three HTTP-date forms, and server text that once
/// crashed Foundation's `DateFormatter` on Linux.
final class RetryAfterDateTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)   // Tue, 14 Nov 2023 22:13:20 GMT

    private func wait(_ value: String) -> TimeInterval? {
        HTTPClientError(.unacceptableStatusCode, statusCode: 503, headers: ["Retry-After": value]).retryAfter(now: now)
    }

    func testTheThreeFormsAgree() {
        XCTAssertEqual(wait("Tue, 14 Nov 2023 22:14:20 GMT"), 60)
        XCTAssertEqual(wait("Tuesday, 14-Nov-23 22:14:20 GMT"), 60)
        XCTAssertEqual(wait("Tue Nov 14 22:14:20 2023"), 60)
        XCTAssertEqual(wait("Tue, 29 Feb 2028 00:00:00 GMT"), 135_395_200, "a leap day")
        XCTAssertEqual(wait("Thu, 01 Jan 1970 00:00:00 GMT"), 0, "the past is now")
    }

    func testGarbageAndCombiningCharactersAreIgnoredNotFatal() {
        for value in ["Mon, 01 Jan 2024 00:00:00 GMT\u{301}", "T, 1\u{331}\u{FFFD}\u{FFFD}-23 22:13:50 GMT", "Mon\u{301}, 01 Jan 2024 00:00:00 GMT",
                      "Tue, 32 Nov 2023 22:14:20 GMT", "Tue, 14 Foo 2023 22:14:20 GMT", "Tue, 14 Nov 2023 25:00:00 GMT",
                      "Tue, 14 Nov 2023 22:14 GMT", "Tue, 14 Nov 2023 22:14:20 UTC", "1.5", "-5", "soon"] {
            XCTAssertNil(wait(value), value)
        }
        XCTAssertEqual(wait(String(repeating: "9", count: 400)), .infinity)
    }
}
