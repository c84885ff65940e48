import Foundation
import RxCore
import RxHTTP
import RxTesting
import XCTest

final class ClientCancellationTests: LoopbackClientTestCase {
    /// Waits until `condition` holds or `timeout` passes; real time, a few hundred ms at most.
    private func eventually(timeout: TimeInterval = 2, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        return condition()
    }

    func testDisposingTheSingleCancelsTheTaskAndDeliversNothing() {
        // given a request the server answers only after 0.4 s
        server.route(.get, "/slow", LoopbackHTTPResponse.json(#"{"id":1,"name":"a"}"#).delayed(by: 0.4))
        let client = makeClient()
        let events = LineCollector()
        let single: Single<User> = client.rx.requestObject(path: "/slow")
        let subscription = single.subscribe(
            onSuccess: { _ in events.append("success") },
            onFailure: { events.append("failure \($0)") },
            onDisposed: { events.append("disposed") }
        )
        // when it is disposed once the server has it
        XCTAssertEqual(server.waitForRequests(count: 1, timeout: 2).count, 1)
        subscription.dispose()
        // then the connection is dropped and no event follows
        XCTAssertTrue(eventually { self.server.openConnectionCount == 0 }, "the client kept the connection open")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(events.lines, ["disposed"])
    }

    func testCancellingTheHandleDeliversCancelledExactlyOnce() {
        server.route(.get, "/slow", LoopbackHTTPResponse.json("{}").delayed(by: 0.4))
        let client = makeClient()
        let box = ResultBox<JSONValue>()
        let done = expectation(description: "completion")
        let handle = client.requestObject(path: "/slow") { (result: Result<JSONValue, HTTPClientError>) in
            box.set(result)
            done.fulfill()
        }
        XCTAssertEqual(server.waitForRequests(count: 1, timeout: 2).count, 1)
        handle.cancel()
        handle.cancel()
        wait(for: [done], timeout: 2)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(failure(box.value)?.code, .cancelled)
        XCTAssertEqual(box.deliveries, 1)
        XCTAssertTrue(handle.isCancelled)
    }

    func testCancellingAFinishedRequestDoesNothing() {
        server.route(.get, "/fast", .json("{}"))
        let client = makeClient()
        let box = ResultBox<JSONValue>()
        let done = expectation(description: "completion")
        let handle = client.requestObject(path: "/fast") { (result: Result<JSONValue, HTTPClientError>) in
            box.set(result)
            done.fulfill()
        }
        wait(for: [done], timeout: 5)
        handle.cancel()
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertEqual(box.deliveries, 1)
        XCTAssertNotNil(try? box.value?.get())
        XCTAssertFalse(handle.isCancelled)
    }

    func testDisposeRacingCompletionDeliversAtMostOnce() {
        server.route(.get, "/race", .json("{}"))
        let client = makeClient()
        let events = LineCollector()
        let subscriptions = (0..<20).map { _ -> Disposable in
            let single: Single<JSONValue> = client.rx.requestObject(path: "/race")
            return single.subscribe(onSuccess: { _ in events.append("s") }, onFailure: { _ in events.append("f") })
        }
        DispatchQueue.concurrentPerform(iterations: subscriptions.count) { index in
            if index.isMultiple(of: 2) {
                Thread.sleep(forTimeInterval: 0.001 * Double(index))
            }
            subscriptions[index].dispose()
        }
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertLessThanOrEqual(events.lines.count, subscriptions.count)
        XCTAssertFalse(events.lines.contains("f"), "a disposed subscription must not see the cancellation")
    }

    func testParallelRequestsZipped() {
        server.route(.get, "/a", LoopbackHTTPResponse.json(#"{"id":1,"name":"a"}"#).delayed(by: 0.3))
        server.route(.get, "/b", LoopbackHTTPResponse.json(#"{"id":2,"name":"b"}"#).delayed(by: 0.3))
        let client = makeClient()
        let a: Single<User> = client.rx.requestObject(path: "/a")
        let b: Single<User> = client.rx.requestObject(path: "/b")
        let both = Single<[User]>.create { single in
            // Until Single.zip lands: run both at once and join them.
            let results = LockedPair()
            let first = a.subscribe(onSuccess: { results.set(0, $0, single) }, onFailure: { single(.failure($0)) })
            let second = b.subscribe(onSuccess: { results.set(1, $0, single) }, onFailure: { single(.failure($0)) })
            return Disposables.create(first, second)
        }
        let started = Date()
        XCTAssertEqual(success(result(of: both))?.map(\.id), [1, 2])
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.55, "the two requests ran one after the other")
    }
}

/// Joins two users for the zip test.
// @unchecked Sendable: `users` is only touched under `lock`.
private final class LockedPair: @unchecked Sendable {
    private let lock = NSLock()
    private var users: [User?] = [nil, nil]

    func set(_ index: Int, _ user: User, _ single: (SingleEvent<[User]>) -> Void) {
        let all = lock.withLock { () -> [User]? in
            users[index] = user
            let done = users.compactMap { $0 }
            return done.count == 2 ? done : nil
        }
        if let all {
            single(.success(all))
        }
    }
}
