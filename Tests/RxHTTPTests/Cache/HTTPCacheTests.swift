import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// The cache through a real transport and a real server on 127.0.0.1: what a polling daemon sees.
/// Test names carry the section of RFC 9111 (or 5861) they check.
final class HTTPCacheTests: LoopbackClientTestCase {
    private func client(_ cache: HTTPCache = HTTPCache(directory: nil), policy: RetryPolicy = .none,
                        protection: HostProtection = HostProtection()) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: policy, hostProtection: protection, cache: cache))
    }

    private func get(_ client: HTTPClient, _ path: String = "/feed", headers: [String: String] = [:],
                     policy: CachePolicy = .useProtocol) -> Result<DecodedResponse<String>, HTTPClientError>? {
        result(of: client.rx.response(Feed(path: path, headers: headers, cachePolicy: policy)))
    }

    /// A resource with an ETag: 304 to a matching If-None-Match, else 200 with `cacheControl`.
    private func serveWithETag(_ path: String = "/feed", cacheControl: String, body: @escaping @Sendable () -> String = { "v1" }) {
        server.route(.get, path) { request in
            let etag = "\"" + body() + "\""
            if request.header("If-None-Match") == etag {
                return LoopbackHTTPResponse.status(304).withHeader("ETag", etag).withHeader("Cache-Control", cacheControl)
            }
            return LoopbackHTTPResponse.text(body()).withHeader("ETag", etag).withHeader("Cache-Control", cacheControl)
        }
    }

    private func statuses(_ path: String = "/feed") -> [String] {
        server.requests(to: path).map { $0.header("If-None-Match") == nil ? "full" : "conditional" }
    }

    // MARK: Freshness and revalidation

    func test_RFC9111_4_2_AFreshAnswerIsServedWithoutAskingTheServer() {
        serveWithETag(cacheControl: "max-age=60")
        let client = client()
        var sources: [CacheStatus] = []
        for _ in 0..<100 {
            guard let answer = success(get(client)) else { return }
            XCTAssertEqual(answer.value, "v1")
            sources.append(answer.cacheStatus)
        }
        XCTAssertEqual(server.requests(to: "/feed").count, 1, "100 polls of a resource fresh for 60 s: one request")
        XCTAssertEqual(sources.first, .network)
        XCTAssertEqual(Set(sources.dropFirst()), [.hit])
    }

    func test_RFC9111_4_3_AStaleAnswerIsRevalidatedAnd304sAnswerFromTheStore() {
        serveWithETag(cacheControl: "max-age=0")
        let client = client()
        var sources: [CacheStatus] = []
        for _ in 0..<100 {
            guard let answer = success(get(client)) else { return }
            XCTAssertEqual(answer.value, "v1", "the body comes from the store")
            XCTAssertEqual(answer.statusCode, 200)
            sources.append(answer.cacheStatus)
        }
        XCTAssertEqual(statuses(), ["full"] + Array(repeating: "conditional", count: 99), "1 full response and 99 304s")
        XCTAssertEqual(Set(sources.dropFirst()), [.revalidated])
    }

    func test_RFC9111_4_3_1_IfModifiedSinceWhenThereIsNoETag() {
        let modified = "Tue, 14 Nov 2023 22:13:20 GMT"
        server.route(.get, "/dated") { request in
            if request.header("If-Modified-Since") == modified { return .status(304) }
            return LoopbackHTTPResponse.text("dated").withHeader("Last-Modified", modified).withHeader("Cache-Control", "no-cache")
        }
        let client = client()
        XCTAssertEqual(success(get(client, "/dated"))?.cacheStatus, .network)
        XCTAssertEqual(success(get(client, "/dated"))?.cacheStatus, .revalidated)
        XCTAssertEqual(server.requests(to: "/dated").map { $0.header("If-Modified-Since") }, [nil, modified])
    }

    func test_RFC9111_4_3_4_A304RefreshesTheStoredHeaders() {
        // stale at first; the 304 says max-age=60: the next poll is a hit
        server.route(.get, "/feed") { request in
            if request.header("If-None-Match") == "\"v1\"" {
                return LoopbackHTTPResponse.status(304).withHeader("ETag", "\"v1\"").withHeader("Cache-Control", "max-age=60")
            }
            return LoopbackHTTPResponse.text("v1").withHeader("ETag", "\"v1\"").withHeader("Cache-Control", "max-age=0")
        }
        let client = client()
        XCTAssertEqual(success(get(client))?.cacheStatus, .network)
        XCTAssertEqual(success(get(client))?.cacheStatus, .revalidated)
        XCTAssertEqual(success(get(client))?.cacheStatus, .hit)
        XCTAssertEqual(server.requests(to: "/feed").count, 2)
    }

    func test_RFC9111_4_3_A200ToAConditionalRequestReplacesTheStoredAnswer() {
        let version = LockedBox("v1")
        serveWithETag(cacheControl: "max-age=0") { version.value }
        let client = client()
        XCTAssertEqual(success(get(client))?.value, "v1")
        version.mutate { $0 = "v2" }
        let changed = success(get(client))
        XCTAssertEqual(changed?.value, "v2")
        XCTAssertEqual(changed?.cacheStatus, .network)
        XCTAssertEqual(success(get(client))?.cacheStatus, .revalidated)
    }

    // MARK: What is stored

    func test_RFC9111_5_2_2_5_NoStoreIsNeverStored() {
        server.route(.get, "/secret", LoopbackHTTPResponse.text("s").withHeader("Cache-Control", "no-store, max-age=60"))
        let client = client()
        for _ in 0..<3 { XCTAssertEqual(success(get(client, "/secret"))?.cacheStatus, .network) }
        XCTAssertEqual(server.requests(to: "/secret").count, 3)
    }

    func test_RFC9111_5_2_1_5_ARequestNoStoreNeitherUsesNorStores() {
        serveWithETag(cacheControl: "max-age=60")
        let client = client()
        XCTAssertEqual(success(get(client, headers: ["Cache-Control": "no-store"]))?.cacheStatus, .network)
        XCTAssertEqual(success(get(client))?.cacheStatus, .network, "nothing was stored")
        XCTAssertEqual(success(get(client, headers: ["Cache-Control": "no-store"]))?.cacheStatus, .network, "stored, but not used")
        XCTAssertEqual(server.requests(to: "/feed").count, 3)
    }

    func test_RFC9111_5_2_1_4_ARequestNoCacheRevalidates() {
        serveWithETag(cacheControl: "max-age=60")
        let client = client()
        _ = get(client)
        XCTAssertEqual(success(get(client, headers: ["Cache-Control": "no-cache"]))?.cacheStatus, .revalidated)
        XCTAssertEqual(success(get(client, headers: ["Pragma": "no-cache"]))?.cacheStatus, .revalidated, "§5.4 Pragma")
        XCTAssertEqual(statuses(), ["full", "conditional", "conditional"])
    }

    func test_RFC9111_4_1_VaryKeepsOneVariantPerSelectingHeader() {
        server.route(.get, "/greeting") { request in
            let language = request.header("Accept-Language") ?? "en"
            return LoopbackHTTPResponse.text(language == "fr" ? "bonjour" : "hello")
                .withHeader("Vary", "Accept-Language").withHeader("Cache-Control", "max-age=60")
        }
        let client = client()
        XCTAssertEqual(success(get(client, "/greeting", headers: ["Accept-Language": "en"]))?.value, "hello")
        XCTAssertEqual(success(get(client, "/greeting", headers: ["Accept-Language": "fr"]))?.value, "bonjour")
        let en = success(get(client, "/greeting", headers: ["Accept-Language": "en"]))
        let fr = success(get(client, "/greeting", headers: ["Accept-Language": "fr"]))
        XCTAssertEqual([en?.value, fr?.value], ["hello", "bonjour"])
        XCTAssertEqual([en?.cacheStatus, fr?.cacheStatus], [.hit, .hit])
        XCTAssertEqual(server.requests(to: "/greeting").count, 2)
    }

    func test_RFC9111_4_1_VaryStarIsNeverReused() {
        server.route(.get, "/any", LoopbackHTTPResponse.text("a").withHeader("Vary", "*").withHeader("Cache-Control", "max-age=60"))
        let client = client()
        _ = get(client, "/any")
        XCTAssertEqual(success(get(client, "/any"))?.cacheStatus, .network)
        XCTAssertEqual(server.requests(to: "/any").count, 2)
    }

    func test_RFC9111_4_4_AnUnsafeMethodsSuccessInvalidatesTheURL() {
        serveWithETag(cacheControl: "max-age=60")
        server.route(.post, "/feed", LoopbackHTTPResponse.status(201).withHeader("Location", "/feed"))
        let client = client()
        _ = get(client)
        XCTAssertEqual(success(get(client))?.cacheStatus, .hit)
        XCTAssertNotNil(success(result(of: client.rx.request(Post(path: "/feed")))))
        XCTAssertEqual(success(get(client))?.cacheStatus, .network, "the POST invalidated it")
    }

    func test_RFC9111_3_5_AResponseToOwnCredentialsIsNotReusedUnlessShareable() {
        serveWithETag(cacheControl: "max-age=60")
        let client = client()
        let authorized = ["Authorization": "Bearer secret-1"]
        _ = get(client, headers: authorized)
        XCTAssertEqual(success(get(client, headers: authorized))?.cacheStatus, .network)
        XCTAssertEqual(server.requests(to: "/feed").count, 2)
    }

    func test_RFC9111_4_ARequestWithItsOwnConditionsPassesThrough() {
        serveWithETag(cacheControl: "max-age=60")
        let client = client(HTTPCache(directory: nil))
        _ = get(client)
        // the caller's own If-None-Match gets the server's 304 (here: unacceptable, as any 304)
        XCTAssertEqual(failure(get(client, headers: ["If-None-Match": "\"v1\""]))?.statusCode, 304)
    }

    // MARK: Stale answers (RFC 5861)

    func test_RFC5861_3_StaleWhileRevalidateAnswersAtOnceAndRevalidatesBehind() {
        serveWithETag(cacheControl: "max-age=0, stale-while-revalidate=60")
        let client = client()
        XCTAssertEqual(success(get(client))?.cacheStatus, .network)
        XCTAssertEqual(success(get(client))?.cacheStatus, .stale)
        XCTAssertTrue(waitUntil(timeout: 2) { self.statuses() == ["full", "conditional"] }, "\(statuses())")
    }

    func test_RFC5861_4_StaleIfErrorWhenTheServerAnswers5xx() {
        let down = LockedBox(false)
        server.route(.get, "/feed") { _ in
            down.value ? .status(503) : LoopbackHTTPResponse.text("v1").withHeader("ETag", "\"v1\"").withHeader("Cache-Control", "max-age=0, stale-if-error=60")
        }
        let client = client(policy: RetryPolicy(maxAttempts: 2, delay: .immediate))
        XCTAssertEqual(success(get(client))?.cacheStatus, .network)
        down.mutate { $0 = true }
        let stale = success(get(client))
        XCTAssertEqual(stale?.value, "v1")
        XCTAssertEqual(stale?.cacheStatus, .stale)
        XCTAssertEqual(server.requests(to: "/feed").count, 3, "the retry policy tried twice before the stale answer")
    }

    func test_RFC5861_4_StaleIfErrorWhenTheServerIsGoneAndATypedErrorAfterTheWindow() throws {
        let cache = HTTPCache(directory: nil)
        // The entry says: stale from the start, usable on error for 1 s.
        server.route(.get, "/feed", LoopbackHTTPResponse.text("v1").withHeader("Cache-Control", "max-age=0, stale-if-error=1").withHeader("ETag", "\"v1\""))
        let client = client(cache)
        XCTAssertEqual(success(get(client))?.cacheStatus, .network)
        server.stop()
        XCTAssertEqual(success(get(client))?.cacheStatus, .stale, "no connection: the stale answer")
        Thread.sleep(forTimeInterval: 1.2)
        XCTAssertEqual(failure(get(client))?.code, .transport, "past the window: the typed error")
    }

    func test_RFC5861_4_StaleIfErrorCoversAnOpenCircuit() {
        let down = LockedBox(false)
        server.route(.get, "/feed") { _ in
            down.value ? .status(500) : LoopbackHTTPResponse.text("v1").withHeader("ETag", "\"v1\"").withHeader("Cache-Control", "max-age=0, stale-if-error=60")
        }
        server.route(.get, "/other", .status(500))
        let breaker = CircuitBreakerPolicy(failureRatio: 0.5, minimumRequests: 3, window: 60, breakDuration: 60)
        let client = client(protection: HostProtection(circuitBreaker: breaker))
        XCTAssertEqual(success(get(client))?.cacheStatus, .network)
        down.mutate { $0 = true }
        _ = get(client, "/other")
        _ = get(client, "/other")
        let before = server.requests.count
        let stale = success(get(client))
        XCTAssertEqual(stale?.cacheStatus, .stale)
        XCTAssertEqual(server.requests.count, before, "the circuit is open: nothing sent")
    }

    func test_RFC9111_5_2_2_2_MustRevalidateNeverServesStaleOnError() {
        let down = LockedBox(false)
        server.route(.get, "/feed") { _ in
            down.value ? .status(503) : LoopbackHTTPResponse.text("v1").withHeader("Cache-Control", "max-age=0, must-revalidate, stale-if-error=60").withHeader("ETag", "\"v1\"")
        }
        let client = client()
        _ = get(client)
        down.mutate { $0 = true }
        XCTAssertEqual(failure(get(client))?.statusCode, 503)
    }

    // MARK: Policies

    func testCachePolicies() {
        serveWithETag(cacheControl: "max-age=0")
        let client = client()
        XCTAssertEqual(failure(get(client, policy: .onlyIfCached))?.code, .notCached)
        XCTAssertEqual(server.requests(to: "/feed").count, 0, "only-if-cached sends nothing")
        XCTAssertEqual(success(get(client, policy: .reload))?.cacheStatus, .network)
        XCTAssertEqual(success(get(client, policy: .onlyIfCached))?.cacheStatus, .stale)
        XCTAssertEqual(success(get(client, policy: .returnCacheElseLoad))?.cacheStatus, .stale)
        XCTAssertEqual(success(get(client, policy: .reload))?.cacheStatus, .network, "reload ignores the store")
        XCTAssertEqual(statuses(), ["full", "full"])
        // §5.2.1.7: the request directive means the same
        XCTAssertEqual(failure(get(client, "/never", headers: ["Cache-Control": "only-if-cached"]))?.code, .notCached)
        XCTAssertEqual(server.requests(to: "/never").count, 0)
    }

    func testWithoutACacheNothingChanges() {
        serveWithETag(cacheControl: "max-age=60")
        let plain = HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5))
        for _ in 0..<3 { XCTAssertEqual(success(result(of: plain.rx.response(Feed(path: "/feed"))))?.cacheStatus, .network) }
        XCTAssertEqual(server.requests(to: "/feed").count, 3)
    }

    func testEventsSayWhereTheAnswerCameFrom() {
        serveWithETag(cacheControl: "max-age=0")
        let client = client()
        let seen = LockedBox([String]())
        let events = client.events.subscribe(onNext: { event in
            if case .completed = event.kind { seen.mutate { $0.append(event.cacheStatus?.rawValue ?? "-") } }
        })
        defer { events.dispose() }
        _ = get(client)
        _ = get(client)
        XCTAssertTrue(waitUntil(timeout: 2) { seen.value.count == 2 })
        XCTAssertEqual(seen.value, ["network", "revalidated"])
    }
}

private struct Feed: Request {
    typealias Response = String
    let path: String
    var headers: [String: String] = [:]
    var cachePolicy: CachePolicy = .useProtocol
}

private struct Post: Request {
    typealias Response = Data
    let path: String
    var method: HTTPMethod { .post }
}
