import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

final class ClientSuspensionTests: LoopbackClientTestCase {
    /// Records the order in which requests go to the transport.
    private struct SendOrder: HTTPPlugin {
        let log: LineCollector
        func willSend(_ request: URLRequest, info: HTTPRequestInfo) {
            log.append(info.path)
        }
    }

    func testSuspendHoldsRequestsUntilResume() {
        // given a suspended client
        server.route(.get, "/*", .json("{}"))
        let sent = LineCollector()
        let client = makeClient(plugins: [SendOrder(log: sent)])
        client.suspend()
        XCTAssertTrue(client.isSuspended)
        // when two requests are made
        let first = ResultBox<JSONValue>()
        let second = ResultBox<JSONValue>()
        let done = expectation(description: "both")
        done.expectedFulfillmentCount = 2
        client.requestObject(path: "/one") { (result: Result<JSONValue, HTTPClientError>) in first.set(result); done.fulfill() }
        client.requestObject(path: "/two") { (result: Result<JSONValue, HTTPClientError>) in second.set(result); done.fulfill() }
        // then nothing is sent until resume
        Thread.sleep(forTimeInterval: 0.15)
        XCTAssertTrue(server.requests.isEmpty)
        XCTAssertTrue(sent.lines.isEmpty)
        XCTAssertNil(first.value)
        client.resume()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(sent.lines, ["/one", "/two"], "held requests are sent in the order they were made")
        XCTAssertEqual(Set(server.requests.map(\.path)), ["/one", "/two"])
        XCTAssertNotNil(try? first.value?.get())
        XCTAssertNotNil(try? second.value?.get())
        XCTAssertFalse(client.isSuspended)
    }

    func testDisposingAHeldRequestRemovesIt() {
        server.route(.get, "/*", .json("{}"))
        let client = makeClient()
        client.suspend()
        let events = LineCollector()
        let dropped: Single<JSONValue> = client.rx.requestObject(path: "/dropped")
        let kept: Single<JSONValue> = client.rx.requestObject(path: "/kept")
        let droppedSubscription = dropped.subscribe(onSuccess: { _ in events.append("dropped") }, onFailure: { _ in events.append("dropped failed") })
        let done = expectation(description: "kept")
        let keptSubscription = kept.subscribe(onSuccess: { _ in events.append("kept"); done.fulfill() })
        droppedSubscription.dispose()
        client.resume()
        wait(for: [done], timeout: 5)
        Thread.sleep(forTimeInterval: 0.1)
        keptSubscription.dispose()
        XCTAssertEqual(server.requests.map(\.path), ["/kept"])
        XCTAssertEqual(events.lines, ["kept"])
    }

    func testInFlightRequestsFinishWhileSuspended() {
        server.route(.get, "/slow", LoopbackHTTPResponse.json("{}").delayed(by: 0.2))
        let client = makeClient()
        let box = ResultBox<JSONValue>()
        let done = expectation(description: "in flight")
        client.requestObject(path: "/slow") { (result: Result<JSONValue, HTTPClientError>) in box.set(result); done.fulfill() }
        XCTAssertEqual(server.waitForRequests(count: 1, timeout: 2).count, 1)
        client.suspend()
        wait(for: [done], timeout: 5)
        XCTAssertNotNil(try? box.value?.get())
        client.resume()
    }

    func testHeldRequestsRunPluginsWhenSentSoTheyPickUpAFreshToken() {
        server.route(.get, "/*", .json("{}"))
        let token = LineCollector()
        token.append("old")
        let client = makeClient(plugins: [AccessTokenPlugin(defaultAuthorizationType: .bearer) { _ in token.lines.last }])
        client.suspend()
        let single: Single<JSONValue> = client.rx.requestObject(path: "/data")
        let done = expectation(description: "sent")
        let subscription = single.subscribe(onSuccess: { _ in done.fulfill() })
        token.append("new")
        client.resume()
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(server.requests.last?.header("Authorization"), "Bearer new")
    }

    private struct Refresh: Request {
        typealias Response = JSONValue
        var path: String { "/refresh" }
        var method: HTTPMethod { .post }
        var bypassesSuspension: Bool { true }
    }

    func testABypassingRequestIsSentWhileSuspended() {
        server.route(.post, "/refresh", .json(#"{"token":"new"}"#))
        let client = makeClient()
        client.suspend()
        XCTAssertEqual(success(result(of: client.rx.request(Refresh())))?["token"], .string("new"))
        client.resume()
    }

    func testSuspendAndResumeFromManyThreads() {
        server.route(.get, "/*", .json("{}"))
        let client = makeClient()
        let count = 16
        let group = DispatchGroup()
        let failures = LineCollector()
        DispatchQueue.concurrentPerform(iterations: count) { index in
            if index.isMultiple(of: 2) { client.suspend() } else { client.resume() }
            group.enter()
            client.requestObject(path: "/r/\(index)") { (result: Result<JSONValue, HTTPClientError>) in
                if case .failure(let error) = result { failures.append("\(error)") }
                group.leave()
            }
        }
        client.resume()
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(failures.lines, [])
        XCTAssertEqual(server.requests.count, count)
    }
}
