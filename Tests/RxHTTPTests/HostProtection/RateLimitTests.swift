import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// The proactive rate limit (`HostProtection(rateLimit:)`) and the server's own rate-limit headers,
/// in virtual time (one tick is one second).
final class RateLimitTests: VirtualTimeClientTestCase {
    // MARK: The bucket

    func testTheBucketAllowsABurstThenTheSteadyRate() {
        var bucket = RateLimitBucket(RateLimit(requests: 2, per: 1))
        let start = Date(timeIntervalSince1970: 1_000)
        let waits = (0..<5).map { _ in bucket.reserve(now: start) }
        XCTAssertEqual(waits, [0, 0, 0.5, 1.0, 1.5])
        // after a quiet spell the burst is back, and no more
        let later = start.addingTimeInterval(10)
        XCTAssertEqual((0..<3).map { _ in bucket.reserve(now: later) }, [0, 0, 0.5])
    }

    func testOnlyTheLatestTurnCanBeGivenBack() {
        var bucket = RateLimitBucket(RateLimit(requests: 1, per: 1))
        let now = Date(timeIntervalSince1970: 1_000)
        XCTAssertEqual(bucket.reserve(now: now), 0)
        XCTAssertEqual(bucket.reserve(now: now), 1)
        let second = bucket.latestTurn
        XCTAssertEqual(bucket.reserve(now: now), 2)
        bucket.cancelLatest(reservedAt: second!)   // not the latest any more: kept
        XCTAssertEqual(bucket.wait(now: now), 3)
        bucket.cancelLatest(reservedAt: bucket.latestTurn!)
        XCTAssertEqual(bucket.wait(now: now), 2)
    }

    func testTheLimitIsBounded() {
        let limit = RateLimit(requests: -5, per: .nan, burst: 1_000)
        XCTAssertEqual(limit.requests, 1)
        XCTAssertEqual(limit.per, 1)
        XCTAssertEqual(limit.burst, 1)
        XCTAssertEqual(RateLimit(requests: 10_000_000, per: 1e12).requests, 1_000_000)
        XCTAssertEqual(RateLimit(requests: 10, per: 0).per, 0.001)
    }

    // MARK: Through the client

    func testSendsArePacedInTheOrderTheyCame() {
        script("/x", [.status(200, body: Data("ok".utf8))])
        let client = client(HostProtection(rateLimit: RateLimit(requests: 2, per: 1)), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        for _ in 0..<6 {
            call(client.rx.request(RawText(path: "/x")), at: 100, into: outcomes)
        }
        scheduler.start()
        // two at once (the burst), then one every half second: on this clock, whole ticks
        XCTAssertEqual(outcomes.value.map(\.0), [100, 100, 101, 101, 102, 102])
        XCTAssertEqual(sends("/x"), 6)
    }

    func testATurnPastTheDeadlineFailsAtOnceWithoutSending() {
        script("/x", [.status(200, body: Data("ok".utf8))])
        let client = client(HostProtection(rateLimit: RateLimit(requests: 1, per: 10)), policy: RetryPolicy(maxAttempts: 1, deadline: 5))
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 100, into: outcomes)
        call(client.rx.request(RawText(path: "/x")), at: 101, into: outcomes)
        scheduler.start()
        XCTAssertEqual(outcomes.value.map(\.0), [100, 101])
        XCTAssertEqual(outcomes.value.map(\.1), ["ok", "rejected"])
        XCTAssertEqual(sends("/x"), 1)
    }

    func testACancelledWaitGivesItsTurnBack() {
        script("/x", [.status(200, body: Data("ok".utf8))])
        let client = client(HostProtection(rateLimit: RateLimit(requests: 1, per: 10)), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 100, into: outcomes)
        var waiting: Disposable?
        _ = scheduler.scheduleAt(101) { waiting = client.rx.request(RawText(path: "/x")).subscribe(onSuccess: { _ in XCTFail("cancelled") }) }
        _ = scheduler.scheduleAt(102) { waiting?.dispose() }
        call(client.rx.request(RawText(path: "/x")), at: 103, into: outcomes)
        scheduler.start()
        // the third takes the turn the second gave back (110), not the one after it (120)
        XCTAssertEqual(outcomes.value.map(\.0), [100, 110])
        XCTAssertEqual(sends("/x"), 2)
    }

    // MARK: The server's headers

    func testNothingIsSentBeforeTheResetTheServerAnnounced() {
        script("/x", [.status(200, body: Data("last".utf8), headers: ["RateLimit": #""default";r=0;t=30"#]), .status(200, body: Data("ok".utf8))])
        let client = client(policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 100, into: outcomes)
        call(client.rx.request(RawText(path: "/x")), at: 101, into: outcomes)
        call(client.rx.request(RawText(path: "/x")), at: 105, into: outcomes)
        scheduler.start()
        XCTAssertEqual(outcomes.value.map(\.0), [100, 130, 130])
        XCTAssertEqual(sends("/x"), 3, "one answer saying none remain, then nothing until the reset")
    }

    func testTheHeadersPauseIsCappedAndCanBeTurnedOff() {
        script("/x", [.status(200, headers: ["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "86400"]), .status(200)])
        let capped = client(HostProtection(maxCooldown: 20), policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        call(capped.rx.request(RawText(path: "/x")), at: 100, into: outcomes)
        call(capped.rx.request(RawText(path: "/x")), at: 101, into: outcomes)
        scheduler.start()
        XCTAssertEqual(outcomes.value.map(\.0), [100, 120])

        script("/y", [.status(200, headers: ["RateLimit-Remaining": "0", "RateLimit-Reset": "50"]), .status(200)])
        let ignoring = client(HostProtection(readsRateLimitHeaders: false), policy: .none)
        let more = LockedBox([(TestTime, String)]())
        call(ignoring.rx.request(RawText(path: "/y")), at: 200, into: more)
        call(ignoring.rx.request(RawText(path: "/y")), at: 201, into: more)
        scheduler.start()
        XCTAssertEqual(more.value.map(\.0), [200, 201])
    }

    func testARemainingQuotaPausesNothing() {
        script("/x", [.status(200, headers: ["RateLimit": "limit=100, remaining=3, reset=60"])])
        let client = client(policy: .none)
        let outcomes = LockedBox([(TestTime, String)]())
        call(client.rx.request(RawText(path: "/x")), at: 100, into: outcomes)
        call(client.rx.request(RawText(path: "/x")), at: 101, into: outcomes)
        scheduler.start()
        XCTAssertEqual(outcomes.value.map(\.0), [100, 101])
    }

    // MARK: The parser

    func testEveryFormOfTheHeadersIsRead() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        func status(_ headers: HTTPHeaders) -> RateLimitHeaders.Status? {
            RateLimitHeaders.status(in: headers, now: now)
        }
        XCTAssertEqual(status(["RateLimit": #""default";r=0;t=30"#]), .init(remaining: 0, resetAfter: 30))
        XCTAssertEqual(status(["ratelimit": #""burst";r=5;t=1, "day";r=0;t=3600"#]), .init(remaining: 0, resetAfter: 3600), "the policy with the fewest left")
        XCTAssertEqual(status(["RateLimit": "limit=100, remaining=7, reset=12"]), .init(remaining: 7, resetAfter: 12))
        XCTAssertEqual(status(["RateLimit-Remaining": "0", "RateLimit-Reset": "9"]), .init(remaining: 0, resetAfter: 9))
        XCTAssertEqual(status(["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000042"]), .init(remaining: 0, resetAfter: 42), "epoch seconds")
        XCTAssertEqual(status(["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1700000001500"]), .init(remaining: 0, resetAfter: 1.5), "epoch milliseconds")
        XCTAssertEqual(status(["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "60"]), .init(remaining: 0, resetAfter: 60), "delta seconds")
        XCTAssertEqual(status(["X-RateLimit-Remaining": "0", "X-RateLimit-Reset-After": "5"]), .init(remaining: 0, resetAfter: 5))
        XCTAssertEqual(status(["X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1600000000"]), .init(remaining: 0, resetAfter: 0), "a reset in the past")
    }

    func testNamesAreReadInAnyCaseAmongOtherHeaders() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "x-ratelimit-remaining": "0", "X-RATELIMIT-RESET-AFTER": "4",
            "Content-Length": "2", "Date": "Tue, 14 Nov 2023 22:13:20 GMT", "Cache-Control": "no-store",
        ]
        XCTAssertEqual(RateLimitHeaders.status(in: headers, now: now), .init(remaining: 0, resetAfter: 4))
        XCTAssertEqual(
            RateLimitHeaders.status(in: ["ratelimit-remaining": "9", "RateLimit-Remaining": "0", "ratelimit-reset": "3"], now: now),
            .init(remaining: 9, resetAfter: 3), "a repeated field, in any spelling: its first line counts"
        )
        XCTAssertNil(RateLimitHeaders.status(in: ["Content-Type": "text/plain", "X-RateLimit-Limit": "100", "RateLimit-Policy": "10;w=1"], now: now))
    }

    func testGarbageSaysNothing() {
        let now = Date()
        for garbage in ["", "r=", "-1", "1e9", "remaining=abc", #""x";r=-3;t=2"#, String(repeating: "9", count: 40), "\u{0}\u{1}",
                        String(repeating: "r=0;", count: 2_000)] {
            let status = RateLimitHeaders.status(in: ["RateLimit": garbage, "X-RateLimit-Remaining": garbage], now: now)
            XCTAssertTrue(status == nil || status?.remaining ?? 0 >= 0, "\(garbage.prefix(20)): \(String(describing: status))")
        }
        XCTAssertNil(RateLimitHeaders.status(in: ["X-RateLimit-Remaining": "lots"], now: now))
        XCTAssertNil(RateLimitHeaders.status(in: ["X-RateLimit-Remaining": "99999999999999999999"], now: now))
    }
}

/// The server's headers end to end: a real server saying its quota is spent for 300 ms.
final class RateLimitHeadersLoopbackTests: LoopbackClientTestCase {
    func testTheClientWaitsForTheResetInsteadOfSpendingA429() {
        // The first answer says the quota is spent until 300 ms from now; a request before that
        // would get a 429.
        // The server keeps the promise its header makes, to the millisecond it announces (the
        // header's precision: comparing with a finer instant would refuse a client that waited
        // exactly as told).
        let state = LockedBox<(resetMilliseconds: Int, seen: Int)>((0, 0))
        server.route(.get, "/quota") { _ in
            let (resetMilliseconds, seen) = state.mutate { state -> (Int, Int) in
                if state.resetMilliseconds == 0 {
                    state.resetMilliseconds = Int(((Date().timeIntervalSince1970 + 0.3) * 1_000).rounded(.up))
                }
                state.seen += 1
                return (state.resetMilliseconds, state.seen)
            }
            if seen > 1, Date().timeIntervalSince1970 * 1_000 < Double(resetMilliseconds) {
                return .status(429)
            }
            return LoopbackHTTPResponse.json("{}").withHeader("X-RateLimit-Remaining", "0")
                .withHeader("X-RateLimit-Reset", String(resetMilliseconds))
        }
        let client = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        XCTAssertNotNil(success(result(of: client.rx.request(RawText(path: "/quota")))))
        let start = Date()
        XCTAssertNotNil(success(result(of: client.rx.request(RawText(path: "/quota")))))
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(start), 0.2, "the second waited for the reset")
        XCTAssertEqual(server.requests(to: "/quota").count, 2, "no 429 was spent")
    }
}
