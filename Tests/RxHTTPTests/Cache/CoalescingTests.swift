import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import XCTest

/// `Configuration(coalescing: true)` over a real transport: identical GETs in flight share one
/// exchange; each caller decodes its own answer; the exchange lives until its last caller leaves.
final class CoalescingTests: LoopbackClientTestCase {
    private func client(coalescing: Bool = true, cache: HTTPCache? = nil, protection: HostProtection = HostProtection()) -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, hostProtection: protection, cache: cache, coalescing: coalescing))
    }

    /// Starts `count` identical calls at once; returns their outcomes once all have one.
    private func concurrent(_ count: Int, _ client: HTTPClient, _ request: Item = Item()) -> [Result<Item.Response, HTTPClientError>] {
        let results = LockedBox([Result<Item.Response, HTTPClientError>]())
        let done = expectation(description: "all answered")
        done.expectedFulfillmentCount = count
        var subscriptions: [Disposable] = []
        for _ in 0..<count {
            subscriptions.append(client.rx.request(request).subscribe(
                onSuccess: { value in results.mutate { $0.append(.success(value)) }; done.fulfill() },
                onFailure: { error in results.mutate { $0.append(.failure(error as? HTTPClientError ?? HTTPClientError(.transport))) }; done.fulfill() }
            ))
        }
        wait(for: [done], timeout: 10)
        subscriptions.forEach { $0.dispose() }
        return results.value
    }

    func testFiftyIdenticalGETsMakeOneRequest() {
        server.route(.get, "/items/1", LoopbackHTTPResponse.json(#"{"id":1}"#).delayed(by: 0.2))
        let results = concurrent(50, client())
        XCTAssertEqual(results.count, 50)
        XCTAssertEqual(results.compactMap { try? $0.get().id }, Array(repeating: 1, count: 50))
        XCTAssertEqual(server.requests(to: "/items/1").count, 1)
    }

    func testWithoutCoalescingEachCallSends() {
        server.route(.get, "/items/1", LoopbackHTTPResponse.json(#"{"id":1}"#).delayed(by: 0.1))
        _ = concurrent(5, client(coalescing: false))
        XCTAssertEqual(server.requests(to: "/items/1").count, 5)
    }

    func testAFailureReachesEveryCallerOnce() {
        server.route(.get, "/items/1", LoopbackHTTPResponse.status(404).delayed(by: 0.1))
        let results = concurrent(10, client())
        XCTAssertEqual(results.compactMap { (try? $0.get()) == nil ? "failed" : nil }.count, 10)
        XCTAssertEqual(server.requests(to: "/items/1").count, 1)
    }

    func testCallsThatDifferInHeadersThatMatterDoNotShare() {
        server.route(.get, "/items/1", LoopbackHTTPResponse.json(#"{"id":1}"#).delayed(by: 0.2))
        let client = client()
        let done = expectation(description: "both")
        done.expectedFulfillmentCount = 2
        let json = client.rx.request(Item(headers: ["Accept": "application/json"])).subscribe(onSuccess: { _ in done.fulfill() })
        let other = client.rx.request(Item(headers: ["Accept": "application/vnd.api+json"])).subscribe(onSuccess: { _ in done.fulfill() })
        wait(for: [done], timeout: 5)
        json.dispose()
        other.dispose()
        XCTAssertEqual(server.requests(to: "/items/1").count, 2)
    }

    func testTheFirstCallerLeavingDoesNotCancelTheExchange() {
        server.route(.get, "/items/1", LoopbackHTTPResponse.json(#"{"id":1}"#).delayed(by: 0.3))
        let client = client()
        let first = client.rx.request(Item()).subscribe(onSuccess: { _ in XCTFail("delivered after dispose") })
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/items/1").count == 1 })
        let second = ResultBox<Item.Response>()
        let answered = expectation(description: "second")
        let subscription = client.rx.request(Item()).subscribe(onSuccess: { second.set(.success($0)); answered.fulfill() })
        first.dispose()
        wait(for: [answered], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(try? second.value?.get().id, 1)
        XCTAssertEqual(server.requests(to: "/items/1").count, 1, "one exchange, kept for the caller who stayed")
    }

    func testTheLastCallerLeavingCancelsTheExchangeAndNothingLeaks() {
        server.route(.get, "/items/1", LoopbackHTTPResponse.json(#"{"id":1}"#).delayed(by: 2))
        server.route(.get, "/items/2", .json(#"{"id":2}"#))
        let client = client()
        let baseline = Resources.total
        let events = LockedBox([String]())
        let watching = client.events.subscribe(onNext: { event in
            if case .completed(let outcome, _, _) = event.kind { events.mutate { $0.append("\(outcome)") } }
        })
        let calls = (0..<3).map { _ in client.rx.request(Item()).subscribe(onSuccess: { _ in XCTFail("delivered after dispose") }) }
        XCTAssertTrue(waitUntil(timeout: 2) { self.server.requests(to: "/items/1").count == 1 })
        calls.forEach { $0.dispose() }
        // the shared exchange ends as cancelled too: four calls completed, all cancelled
        XCTAssertTrue(waitUntil(timeout: 2) { events.value.count == 4 }, "\(events.value)")
        XCTAssertTrue(events.value.allSatisfy { $0.contains("cancelled") }, "\(events.value)")
        watching.dispose()
        XCTAssertTrue(waitUntil(timeout: 2) { Resources.total <= baseline + 1 }, "\(Resources.total) against \(baseline)")
        // and the client goes on
        XCTAssertEqual(success(result(of: client.rx.request(Item(path: "/items/2"))))?.id, 2)
    }

    func testCoalescedCallsTakeOneRateLimitTurn() {
        server.route(.get, "/items/1", LoopbackHTTPResponse.json(#"{"id":1}"#).delayed(by: 0.1))
        let client = client(protection: HostProtection(rateLimit: RateLimit(requests: 1, per: 60)))
        let start = Date()
        let results = concurrent(20, client)
        XCTAssertEqual(results.compactMap { try? $0.get().id }.count, 20)
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "one turn for all twenty")
    }

    func testWithACacheTheSharedAnswerIsStoredAndThenAHit() {
        server.route(.get, "/items/1", LoopbackHTTPResponse.json(#"{"id":1}"#).withHeader("Cache-Control", "max-age=60").delayed(by: 0.2))
        let cache = HTTPCache(directory: nil)
        let client = client(cache: cache)
        _ = concurrent(10, client)
        XCTAssertEqual(server.requests(to: "/items/1").count, 1)
        XCTAssertEqual(cache.variants(for: server.baseURL.absoluteString + "/items/1").count, 1)
        XCTAssertEqual(success(result(of: client.rx.response(Item())))?.cacheStatus, .hit)
    }
}

private struct Item: Request {
    struct Response: Decodable, Sendable { let id: Int }
    var path = "/items/1"
    var headers: [String: String] = [:]
}
