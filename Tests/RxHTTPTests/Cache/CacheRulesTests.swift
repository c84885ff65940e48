import Foundation
@testable import RxHTTP
import XCTest

/// The cache's rules without a client: `Cache-Control` parsing (RFC 9111 §5.2, §1.2.2), freshness
/// and age (§4.2), what may be stored (§3) and variant matching (§4.1). Test names carry the
/// section they check.
final class CacheRulesTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    private func stored(_ headers: HTTPHeaders, status: Int = 200, requestTime: Date? = nil, responseTime: Date? = nil) -> CachedResponse {
        CachedResponse(statusCode: status, headers: headers, body: Data("x".utf8), url: nil,
                       requestTime: requestTime ?? t0, responseTime: responseTime ?? t0, varyValues: [:])
    }

    private func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    // MARK: §5.2 Cache-Control

    func test_RFC9111_5_2_DirectivesAreReadCaseInsensitivelyWithQuotedValues() {
        let control = CacheControl(#"Max-Age="60", no-cache="Set-Cookie", PRIVATE, must-revalidate, stale-while-revalidate=30, stale-if-error=600, s-maxage=5"#)
        XCTAssertEqual(control.maxAge, 60)
        XCTAssertTrue(control.noCache)
        XCTAssertTrue(control.isPrivate)
        XCTAssertTrue(control.mustRevalidate)
        XCTAssertEqual(control.staleWhileRevalidate, 30)
        XCTAssertEqual(control.staleIfError, 600)
        XCTAssertEqual(control.sharedMaxAge, 5)
    }

    func test_RFC9111_1_2_2_DeltaSecondsAreCappedAt2To31() {
        XCTAssertEqual(CacheControl("max-age=99999999999999999999999").maxAge, CacheControl.maxDeltaSeconds)
        XCTAssertEqual(CacheControl("max-age=1e300").maxAge, 0, "not delta-seconds: stale")
        XCTAssertEqual(CacheControl("max-age=3000000000").maxAge, CacheControl.maxDeltaSeconds)
    }

    func test_RFC9111_4_2_1_AnInvalidMaxAgeMakesTheResponseStale() {
        XCTAssertEqual(CacheControl("max-age=soon").maxAge, 0)
        XCTAssertEqual(CacheControl("max-age").maxAge, 0)
        XCTAssertEqual(CacheControl("max-age=-5").maxAge, 0)
    }

    func test_RFC9111_5_2_GarbageIsIgnoredAndTheParserIsBounded() {
        XCTAssertEqual(CacheControl(",,, =, ==\u{0}\"unterminated"), CacheControl())
        let many = String(repeating: "foo, ", count: 10_000) + "no-store"
        XCTAssertFalse(CacheControl(many).noStore, "only the first 8 KiB / 64 directives are read")
        XCTAssertTrue(CacheControl(String(repeating: "x, ", count: 10) + "no-store").noStore)
    }

    func test_RFC9111_5_2_1_1_MaxStaleWithoutAValueMeansAnyStaleness() {
        XCTAssertEqual(CacheControl("max-stale").maxStale, .infinity)
        XCTAssertEqual(CacheControl("max-stale=10").maxStale, 10)
    }

    func test_RFC9111_5_4_PragmaNoCacheCountsOnlyWithoutCacheControl() {
        XCTAssertTrue(CacheControl(headers: ["Pragma": "no-cache"]).noCache)
        XCTAssertFalse(CacheControl(headers: ["Pragma": "no-cache", "Cache-Control": "max-age=5"]).noCache)
    }

    func test_RFC9111_5_2_SeveralFieldsAreCombined() {
        let control = CacheControl(headers: ["cache-control": "max-age=5", "Cache-Control": "no-store"])
        XCTAssertTrue(control.noStore)
        XCTAssertEqual(control.maxAge, 5)
    }

    // MARK: §4.2 Freshness

    func test_RFC9111_4_2_1_MaxAgeWinsOverExpires() {
        let entry = stored(["Cache-Control": "max-age=10", "Date": httpDate(t0), "Expires": httpDate(t0.addingTimeInterval(1_000))])
        XCTAssertEqual(CacheFreshness(entry, now: t0).lifetime, 10)
    }

    func test_RFC9111_4_2_1_ExpiresMinusDate() {
        let entry = stored(["Date": httpDate(t0), "Expires": httpDate(t0.addingTimeInterval(300))])
        let freshness = CacheFreshness(entry, now: t0.addingTimeInterval(100))
        XCTAssertEqual(freshness.lifetime, 300)
        XCTAssertTrue(freshness.isFresh)
        XCTAssertFalse(CacheFreshness(entry, now: t0.addingTimeInterval(301)).isFresh)
    }

    func test_RFC9111_5_3_AnInvalidExpiresIsInThePast() {
        let entry = stored(["Date": httpDate(t0), "Expires": "0"])
        XCTAssertEqual(CacheFreshness(entry, now: t0).lifetime, 0)
        XCTAssertFalse(CacheFreshness(entry, now: t0).isFresh)
    }

    func test_RFC9111_4_2_2_HeuristicFreshnessIsATenthOfTheAgeOfLastModified() {
        let entry = stored(["Date": httpDate(t0), "Last-Modified": httpDate(t0.addingTimeInterval(-10_000))])
        let freshness = CacheFreshness(entry, now: t0)
        XCTAssertTrue(freshness.isHeuristic)
        XCTAssertEqual(freshness.lifetime, 1_000)
        // capped at a day
        let old = stored(["Date": httpDate(t0), "Last-Modified": httpDate(t0.addingTimeInterval(-100 * 86_400))])
        XCTAssertEqual(CacheFreshness(old, now: t0).lifetime, 86_400)
    }

    func test_RFC9111_4_2_2_NoHeuristicForAStatusThatIsNotHeuristicallyCacheable() {
        let entry = stored(["Date": httpDate(t0), "Last-Modified": httpDate(t0.addingTimeInterval(-10_000))], status: 302)
        XCTAssertEqual(CacheFreshness(entry, now: t0).lifetime, 0)
    }

    func test_RFC9111_4_2_3_AgeCountsTheAgeHeaderTheDelayAndTheTimeResident() {
        // sent at t0, answered 2 s later with Age: 30 and a Date 5 s in the past
        let entry = stored(["Cache-Control": "max-age=100", "Age": "30", "Date": httpDate(t0.addingTimeInterval(-3))],
                           requestTime: t0, responseTime: t0.addingTimeInterval(2))
        let freshness = CacheFreshness(entry, now: t0.addingTimeInterval(12))
        // corrected initial age = max(apparent 5, 30 + 2) = 32; resident 10
        XCTAssertEqual(freshness.age, 42, accuracy: 0.001)
        XCTAssertTrue(freshness.isFresh)
        XCTAssertFalse(CacheFreshness(entry, now: t0.addingTimeInterval(71)).isFresh)
    }

    func test_RFC9111_5_2_1_RequestDirectivesNarrowOrWidenWhatIsUsable() {
        let entry = stored(["Cache-Control": "max-age=100"])
        let at50 = CacheFreshness(entry, now: t0.addingTimeInterval(50))
        XCTAssertTrue(at50.isUsable(for: CacheControl()))
        XCTAssertFalse(at50.isUsable(for: CacheControl("max-age=10")), "§5.2.1.1 max-age")
        XCTAssertFalse(at50.isUsable(for: CacheControl("min-fresh=60")), "§5.2.1.3 min-fresh")
        XCTAssertFalse(at50.isUsable(for: CacheControl("no-cache")), "§5.2.1.4 no-cache")
        let at120 = CacheFreshness(entry, now: t0.addingTimeInterval(120))
        XCTAssertFalse(at120.isUsable(for: CacheControl()))
        XCTAssertTrue(at120.isUsable(for: CacheControl("max-stale=30")), "§5.2.1.2 max-stale")
        XCTAssertFalse(at120.isUsable(for: CacheControl("max-stale=10")))
        let strict = stored(["Cache-Control": "max-age=100, must-revalidate"])
        XCTAssertFalse(CacheFreshness(strict, now: t0.addingTimeInterval(120)).isUsable(for: CacheControl("max-stale")), "§5.2.2.2 must-revalidate")
    }

    func test_RFC9111_5_2_2_4_AResponseNoCacheIsNeverUsedWithoutRevalidation() {
        let entry = stored(["Cache-Control": "max-age=100, no-cache"])
        XCTAssertFalse(CacheFreshness(entry, now: t0).isUsable(for: CacheControl()))
    }

    func test_RFC5861_StaleWindows() {
        let entry = stored(["Cache-Control": "max-age=10, stale-while-revalidate=20, stale-if-error=100"])
        XCTAssertTrue(CacheFreshness(entry, now: t0.addingTimeInterval(25)).allowsStaleWhileRevalidate)
        XCTAssertFalse(CacheFreshness(entry, now: t0.addingTimeInterval(31)).allowsStaleWhileRevalidate)
        XCTAssertTrue(CacheFreshness(entry, now: t0.addingTimeInterval(100)).allowsStaleIfError(request: CacheControl()))
        XCTAssertFalse(CacheFreshness(entry, now: t0.addingTimeInterval(111)).allowsStaleIfError(request: CacheControl()))
        // the request may ask for a wider window (RFC 5861 §4)
        XCTAssertTrue(CacheFreshness(entry, now: t0.addingTimeInterval(300)).allowsStaleIfError(request: CacheControl("stale-if-error=400")))
        let strict = stored(["Cache-Control": "max-age=10, must-revalidate, stale-if-error=100"])
        XCTAssertFalse(CacheFreshness(strict, now: t0.addingTimeInterval(20)).allowsStaleIfError(request: CacheControl()))
    }

    // MARK: §3 Storing

    private func pending(_ headers: [String: String] = [:]) -> CacheInterceptor.Pending {
        CacheInterceptor.Pending(key: "k", stored: nil, request: CacheControl(headers: headers), requestHeaders: HTTPHeaders(headers), sentAt: t0, mayStore: true)
    }

    private func storable(_ headers: [String: String], status: Int = 200, request: [String: String] = [:]) -> Bool {
        CacheInterceptor.storable(HTTPResponse(statusCode: status, headers: headers), pending: pending(request), now: t0) != nil
    }

    func test_RFC9111_3_WhatMayBeStored() {
        XCTAssertTrue(storable(["Cache-Control": "max-age=60"]))
        XCTAssertTrue(storable(["ETag": #""v1""#]), "a validator alone: stored to revalidate")
        XCTAssertTrue(storable(["Last-Modified": httpDate(t0)]))
        XCTAssertFalse(storable([:]), "nothing makes it reusable")
        XCTAssertFalse(storable(["Cache-Control": "no-store, max-age=60"]), "§5.2.2.5 no-store")
        XCTAssertTrue(storable(["Cache-Control": "private, max-age=60"]), "§5.2.2.7 private: this cache is private")
        XCTAssertFalse(storable(["Cache-Control": "max-age=60", "Vary": "*"]), "§4.1 Vary: *")
        XCTAssertFalse(storable(["ETag": "x"], status: 302), "not heuristically cacheable, no explicit freshness")
        XCTAssertTrue(storable(["Cache-Control": "max-age=60"], status: 302), "explicit freshness")
    }

    func test_RFC9111_3_5_ARequestWithItsOwnAuthorizationIsStoredOnlyAsASharedCacheMay() {
        let authorized = ["Authorization": "Bearer t"]
        XCTAssertFalse(storable(["Cache-Control": "max-age=60"], request: authorized))
        XCTAssertTrue(storable(["Cache-Control": "public, max-age=60"], request: authorized))
        XCTAssertTrue(storable(["Cache-Control": "s-maxage=60, max-age=30"], request: authorized))
        XCTAssertTrue(storable(["Cache-Control": "must-revalidate, max-age=60"], request: authorized))
    }

    // MARK: §4.1 Vary

    func test_RFC9111_4_1_VariantsMatchOnTheSelectingHeadersNormalized() {
        let names = CachedResponse.varyNames(["Vary": "Accept-Language, accept-encoding"])
        XCTAssertEqual(names, ["accept-language", "accept-encoding"])
        let values = CachedResponse.values(of: names, in: ["Accept-Language": "en,  fr", "Accept-Encoding": "gzip"])
        var entry = stored(["Vary": "Accept-Language, accept-encoding"])
        entry.varyValues = values
        XCTAssertTrue(entry.matches(["accept-language": "en, fr", "ACCEPT-ENCODING": "gzip"]))
        XCTAssertFalse(entry.matches(["Accept-Language": "de", "Accept-Encoding": "gzip"]))
        XCTAssertFalse(entry.matches(["Accept-Encoding": "gzip"]), "absent is not the same as present")
    }

    func test_RFC9111_4_3_4_A304ReplacesTheStoredHeadersButNotTheBodyOnes() {
        let entry = stored(["ETag": #""v1""#, "Cache-Control": "max-age=0", "Content-Length": "1", "X-Old": "1"])
        let updated = entry.updated(with: ["cache-control": "max-age=60", "Content-Length": "0", "X-New": "2"],
                                    requestTime: t0.addingTimeInterval(5), responseTime: t0.addingTimeInterval(6))
        XCTAssertEqual(updated.headers["Cache-Control"], "max-age=60")
        XCTAssertEqual(updated.headers["Content-Length"], "1")
        XCTAssertEqual(updated.headers["X-New"], "2")
        XCTAssertEqual(updated.headers["X-Old"], "1")
        XCTAssertEqual(updated.body, entry.body)
        XCTAssertEqual(updated.responseTime, t0.addingTimeInterval(6))
    }

    func test_RFC9111_4_3_4_A304ReplacesEveryLineOfARepeatedField() {
        let entry = stored(["ETag": #""v1""#, "Link": "<a>", "Cache-Control": "max-age=0", "link": "<b>", "Warning": "110 - stale"])
        let updated = entry.updated(with: ["LINK": "<c>", "Link": "<d>", "Content-Type": "text/html"],
                                    requestTime: t0, responseTime: t0)
        XCTAssertEqual(updated.headers.values(for: "Link"), ["<c>", "<d>"], "the 304's lines replace all the stored ones")
        XCTAssertEqual(updated.headers.values(for: "Warning"), ["110 - stale"], "a field the 304 does not carry stays")
        XCTAssertNil(updated.headers["Content-Type"], "a body field of the 304 is not taken")
        var many = HTTPHeaders()
        for index in 0..<20_000 { many.add(name: "X-\(index % 5_000)", value: "\(index)") }
        let flooded = entry.updated(with: many, requestTime: t0, responseTime: t0)
        XCTAssertEqual(flooded.headers.count, entry.headers.count + 20_000, "thousands of lines: taken in one pass")
        XCTAssertEqual(flooded.headers.names.count, 4 + 5_000, "ETag, Link, Cache-Control, Warning and the 5,000")
    }
}
