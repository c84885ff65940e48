import Foundation
import RxCore
@testable import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// The outbox in one process, against a real server that applies each `Idempotency-Key` once:
/// stored before `enqueue` succeeds, read back by the next instance, bounded, refused for requests
/// that may not be sent twice; delivered until each entry has one outcome — through failures that
/// pass, in order per origin, a poisoned entry not blocking the rest —; recorded outcomes handed
/// over after a restart; damaged files set aside; shutdown leaving entries in place.
final class OutboxTests: LoopbackClientTestCase {
    private var directory: URL!
    private let orders = IdempotentOrderServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-outbox-\(UUID().uuidString)")
        orders.install(on: server)
    }

    override func tearDown() {
        super.tearDown()
        try? FileManager.default.removeItem(at: directory)
    }

    private func makeClient(retries: Int = 1) -> HTTPClient {
        HTTPClient(
            baseURL: server.baseURL,
            configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: retries, delay: .constant(time: 0.01)))
        )
    }

    private let fast = OutboxDeliveryOptions(redeliveryDelay: .constant(time: 0.02), jitter: .none, redeliversWhenReachable: false)

    private func enqueue(_ order: Int, _ client: HTTPClient, _ outbox: Outbox) throws -> OutboxEntry {
        switch result(of: client.rx.enqueue(CreateOrder(order: order), in: outbox)) {
        case .success(let entry)?: return entry
        case .failure(let error)?: throw error
        case nil: throw XCTSkip("no answer")
        }
    }

    /// Subscribes `deliver` until `count` deliveries arrived (or `timeout`), then disposes.
    private func deliveries(
        _ count: Int, _ client: HTTPClient, _ outbox: Outbox, options: OutboxDeliveryOptions? = nil, timeout: TimeInterval = 10
    ) -> [OutboxDelivery] {
        let received = Mutex<[OutboxDelivery]>([])
        let done = expectation(description: "\(count) deliveries")
        done.assertForOverFulfill = false
        let subscription = client.rx.deliver(outbox, options: options ?? fast).subscribe(onNext: { delivery in
            if received.withLock({ $0.append(delivery); return $0.count }) >= count { done.fulfill() }
        }, onError: { error in
            XCTFail("deliver failed: \(error)")
            done.fulfill()
        })
        if count == 0 { done.fulfill() }
        wait(for: [done], timeout: timeout)
        subscription.dispose()
        return received.withLock { $0 }
    }

    private func statuses(_ deliveries: [OutboxDelivery]) -> [Int?] {
        deliveries.map { delivery in
            switch delivery.result {
            case .success(let response): return response.statusCode
            case .failure(let error): return error.statusCode
            }
        }
    }

    // MARK: Storing

    func testAnEnqueuedEntryIsOnDiskWithItsKeyAndTheNextInstanceReadsItBack() throws {
        let client = makeClient()
        var outbox: Outbox? = try Outbox(directory: directory)
        let first = try enqueue(1, client, try XCTUnwrap(outbox))
        let second = try enqueue(2, client, try XCTUnwrap(outbox))
        XCTAssertEqual(outbox?.depth, 2)
        XCTAssertNotEqual(first.idempotencyKey, second.idempotencyKey)
        XCTAssertEqual(first.method, .post)
        XCTAssertEqual(first.url, server.url("/orders"))
        XCTAssertEqual(orders.requests, 0, "enqueue sends nothing")
        let file = directory.appendingPathComponent("\(first.id.uuidString).entry")
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        outbox?.close()
        outbox = nil
        let reopened = try Outbox(directory: directory)
        XCTAssertEqual(reopened.entries.map(\.id), [first.id, second.id], "read back in enqueue order")
        XCTAssertEqual(reopened.entries.map(\.idempotencyKey), [first.idempotencyKey, second.idempotencyKey])
        XCTAssertNotNil(reopened.oldestEntryAge())
        XCTAssertTrue(reopened.skippedRecords.isEmpty)
    }

    func testARequestThatMayNotBeSentTwiceIsRefusedAndNothingIsStored() throws {
        struct PlainPost: Request {
            typealias Response = Data
            var path: String { "/orders" }
            var method: HTTPMethod { .post }
        }
        struct Never: Request {
            typealias Response = Data
            var path: String { "/orders" }
            var method: HTTPMethod { .put }
            var idempotency: Idempotency { .notIdempotent }
        }
        struct Put: Request {
            typealias Response = Data
            var path: String { "/orders/7" }
            var method: HTTPMethod { .put }
        }
        let client = makeClient()
        let outbox = try Outbox(directory: directory)
        XCTAssertEqual(failure(result(of: client.rx.enqueue(PlainPost(), in: outbox)))?.code, .invalidRequest)
        XCTAssertEqual(failure(result(of: client.rx.enqueue(Never(), in: outbox)))?.code, .invalidRequest)
        XCTAssertEqual(outbox.depth, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }, [])
        guard case .success? = result(of: client.rx.enqueue(Put(), in: outbox)) else { return XCTFail("a PUT is idempotent") }
    }

    func testAFullOutboxRejectsWithATypedErrorAndKeepsWhatItHolds() throws {
        let client = makeClient()
        let outbox = try Outbox(directory: directory, maxEntries: 2)
        _ = try enqueue(1, client, outbox)
        _ = try enqueue(2, client, outbox)
        let refused = failure(result(of: client.rx.enqueue(CreateOrder(order: 3), in: outbox)))
        XCTAssertEqual(refused?.code, .rejected)
        XCTAssertEqual(refused?.phase, .notSent)
        XCTAssertEqual(outbox.depth, 2)
        let small = try Outbox(directory: directory.appendingPathComponent("small"), maxBytes: 4_096)
        struct Big: Request {
            typealias Response = Data
            var path: String { "/orders" }
            var method: HTTPMethod { .put }
            var body: any RequestBody { RawBody(Data(count: 8_192)) }
        }
        XCTAssertEqual(failure(result(of: client.rx.enqueue(Big(), in: small)))?.code, .rejected)
        XCTAssertEqual(small.depth, 0)
    }

    func testBoundsOutOfRangeAreTypedErrors() {
        for (entries, bytes) in [(0, 1 << 20), (Outbox.entryLimit + 1, 1 << 20), (10, 100), (10, Int.max)] {
            XCTAssertThrowsError(try Outbox(directory: directory, maxEntries: entries, maxBytes: bytes)) { error in
                XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest)
            }
        }
    }

    func testOneInstanceHoldsTheDirectoryAtATime() throws {
        let outbox = try Outbox(directory: directory)
        XCTAssertThrowsError(try Outbox(directory: directory)) { error in
            XCTAssertEqual((error as? HTTPClientError)?.code, .fileSystem)
        }
        outbox.close()
        XCTAssertNoThrow(try Outbox(directory: directory))
        let client = makeClient()
        XCTAssertEqual(failure(result(of: client.rx.enqueue(CreateOrder(order: 1), in: outbox)))?.code, .fileSystem, "closed")
    }

    // MARK: Delivering

    func testEntriesAreDeliveredInOrderEachAppliedOnceAndTheOutboxEmpties() throws {
        let client = makeClient()
        let outbox = try Outbox(directory: directory)
        let entries = try (1...5).map { try enqueue($0, client, outbox) }
        let delivered = deliveries(5, client, outbox)
        XCTAssertEqual(delivered.map(\.entry.id), entries.map(\.id), "FIFO per origin")
        XCTAssertEqual(statuses(delivered), Array(repeating: 201, count: 5))
        XCTAssertEqual(delivered.map(\.isRecovered), Array(repeating: false, count: 5))
        XCTAssertEqual(orders.applied.map(\.order), [1, 2, 3, 4, 5])
        XCTAssertEqual(orders.applied.map(\.key), entries.map(\.idempotencyKey))
        XCTAssertTrue(waitUntil(timeout: 2) { outbox.depth == 0 })
        // Handed-over entries leave the index at once and the disk at the next flush, which
        // `close` waits for.
        outbox.close()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { !$0.hasPrefix(".") }, [])
    }

    func testFailuresThatPassAreSentAgainWithTheSameKeyUntilTheOutcome() throws {
        let client = makeClient(retries: 1)
        let outbox = try Outbox(directory: directory)
        let entry = try enqueue(7, client, outbox)
        orders.failNext(with: [503, 429, 425])
        let delivered = deliveries(1, client, outbox)
        XCTAssertEqual(statuses(delivered), [201])
        let keys = server.requests(to: "/orders").map { $0.header("Idempotency-Key") }
        XCTAssertEqual(keys, Array(repeating: entry.idempotencyKey, count: 4), "one key on every attempt")
        XCTAssertEqual(orders.applied.count, 1)
    }

    func testAPoisonedEntryEndsWithItsFailureAndDoesNotBlockTheNext() throws {
        let client = makeClient()
        let outbox = try Outbox(directory: directory)
        let first = try enqueue(1, client, outbox)
        let second = try enqueue(2, client, outbox)
        orders.failNext(with: [422])
        let delivered = deliveries(2, client, outbox)
        XCTAssertEqual(delivered.map(\.entry.id), [first.id, second.id])
        guard case .failure(let error) = delivered.first?.result else { return XCTFail("the 422 is the outcome") }
        XCTAssertEqual(error.code, .unacceptableStatusCode)
        XCTAssertEqual(error.statusCode, 422)
        XCTAssertEqual(statuses(delivered), [422, 201])
        XCTAssertTrue(waitUntil(timeout: 2) { outbox.depth == 0 })
    }

    func testEntriesStoredWhileDeliveringAreDeliveredToo() throws {
        let client = makeClient()
        let outbox = try Outbox(directory: directory)
        let received = Mutex<[OutboxDelivery]>([])
        let done = expectation(description: "three")
        let subscription = client.rx.deliver(outbox, options: fast).subscribe(onNext: { delivery in
            if received.withLock({ $0.append(delivery); return $0.count }) == 3 { done.fulfill() }
        })
        for order in 1...3 { _ = try enqueue(order, client, outbox) }
        wait(for: [done], timeout: 10)
        subscription.dispose()
        XCTAssertEqual(orders.applied.map(\.order), [1, 2, 3])
    }

    func testASecondDeliverySubscriptionIsRefused() throws {
        let client = makeClient()
        let outbox = try Outbox(directory: directory)
        let first = client.rx.deliver(outbox).subscribe()
        defer { first.dispose() }
        let refused = expectation(description: "refused")
        let second = client.rx.deliver(outbox).subscribe(onError: { error in
            XCTAssertEqual((error as? HTTPClientError)?.code, .invalidRequest)
            refused.fulfill()
        })
        wait(for: [refused], timeout: 2)
        second.dispose()
    }

    func testEventsTellEnqueueAttemptAndOutcome() throws {
        let client = makeClient()
        let events = Mutex<[HTTPClientEvent.Kind]>([])
        let watching = client.events.subscribe(onNext: { event in
            switch event.kind {
            case .outboxEnqueued, .outboxAttempt, .outboxOutcome: events.withLock { $0.append(event.kind) }
            default: break
            }
        })
        defer { watching.dispose() }
        let outbox = try Outbox(directory: directory)
        let entry = try enqueue(1, client, outbox)
        orders.failNext(with: [503])
        _ = deliveries(1, client, outbox)
        XCTAssertTrue(waitUntil(timeout: 2) { events.withLock { $0.count } == 4 })
        let descriptions = events.withLock { $0 }.map { "\($0)" }
        XCTAssertEqual(descriptions, [
            "outbox entry \(entry.id) stored (1 waiting)",
            "outbox entry \(entry.id): delivery 1",
            "outbox entry \(entry.id): delivery 2",
            "outbox entry \(entry.id): 201 (1 in the outbox)",
        ])
    }

    // MARK: Restarts and damage

    func testAnOutcomeRecordedBeforeADeathIsHandedOverAgainAsRecoveredWithoutSending() throws {
        let client = makeClient()
        var outbox: Outbox? = try Outbox(directory: directory)
        let entry = try enqueue(1, client, try XCTUnwrap(outbox))
        // What a process that died between recording and handing over leaves.
        let outcome = StoredOutcome(id: entry.id, result: .success(HTTPResponse(statusCode: 201, body: Data("{\"order\":1}".utf8))))
        try OutboxRecord.outcome(outcome).encoded().write(to: directory.appendingPathComponent("\(entry.id.uuidString).outcome"))
        outbox?.close()
        outbox = nil
        let reopened = try Outbox(directory: directory)
        let delivered = deliveries(1, client, reopened)
        XCTAssertEqual(delivered.map(\.entry.id), [entry.id])
        XCTAssertEqual(delivered.map(\.isRecovered), [true])
        XCTAssertEqual(statuses(delivered), [201])
        XCTAssertEqual(orders.requests, 0, "the recorded outcome is not sent again")
        XCTAssertTrue(waitUntil(timeout: 2) { reopened.depth == 0 })
    }

    func testDamagedAndForeignFilesAreSetAsideReportedAndNeverSent() throws {
        let client = makeClient()
        var outbox: Outbox? = try Outbox(directory: directory)
        let kept = try enqueue(1, client, try XCTUnwrap(outbox))
        let damaged = try enqueue(2, client, try XCTUnwrap(outbox))
        outbox?.close()
        outbox = nil
        let damagedFile = directory.appendingPathComponent("\(damaged.id.uuidString).entry")
        var bytes = try Data(contentsOf: damagedFile)
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: damagedFile)
        try Data("hello".utf8).write(to: directory.appendingPathComponent("\(UUID().uuidString).entry"))
        try Data().write(to: directory.appendingPathComponent("\(UUID().uuidString).outcome"))
        let reopened = try Outbox(directory: directory)
        XCTAssertEqual(reopened.entries.map(\.id), [kept.id])
        XCTAssertEqual(reopened.skippedRecords.map(\.reason).sorted(), ["checksum mismatch", "not an outbox record", "truncated (a torn write)"])
        let aside = try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("skipped").path)
        XCTAssertEqual(aside.count, 3)
        XCTAssertEqual(statuses(deliveries(1, client, reopened)), [201])
        XCTAssertEqual(orders.applied.map(\.order), [1], "the damaged entry is never sent")
    }

    func testShutdownCompletesDeliveryAndLeavesWaitingEntriesInPlace() throws {
        let client = makeClient()
        let outbox = try Outbox(directory: directory)
        _ = try enqueue(1, client, outbox)
        orders.failNext(with: Array(repeating: 503, count: 1_000))
        let completed = expectation(description: "completed")
        let subscription = client.rx.deliver(outbox, options: OutboxDeliveryOptions(redeliveryDelay: .constant(time: 30), redeliversWhenReachable: false))
            .subscribe(onNext: { _ in XCTFail("no outcome") }, onCompleted: { completed.fulfill() })
        XCTAssertTrue(waitUntil(timeout: 5) { self.orders.requests >= 1 })
        let shutDown = expectation(description: "shut down")
        _ = client.shutdown(gracePeriod: 1).subscribe(onCompleted: { shutDown.fulfill() })
        wait(for: [completed, shutDown], timeout: 5, enforceOrder: true)
        subscription.dispose()
        XCTAssertEqual(outbox.depth, 1)
        XCTAssertEqual(try Outbox.entriesOnDisk(directory), 1)
    }

    func testACredentialAddedWhenSentIsNeverStored() throws {
        let client = HTTPClient(
            baseURL: server.baseURL, configuration: .init(timeout: 5),
            plugins: [AccessTokenPlugin(defaultAuthorizationType: .bearer) { _ in "secret-token-4711" }]
        )
        struct AuthorizedOrder: Request, AccessTokenAuthorizable {
            typealias Response = Data
            var path: String { "/orders" }
            var method: HTTPMethod { .post }
            var idempotency: Idempotency { .keyed }
            var body: any RequestBody { JSONBody(["order": 9]) }
            var authorizationType: AuthorizationType? { .bearer }
        }
        let outbox = try Outbox(directory: directory)
        guard case .success(let entry)? = result(of: client.rx.enqueue(AuthorizedOrder(), in: outbox)) else { return XCTFail("stored") }
        let stored = try Data(contentsOf: directory.appendingPathComponent("\(entry.id.uuidString).entry"))
        XCTAssertNil(stored.range(of: Data("secret-token-4711".utf8)))
        _ = deliveries(1, client, outbox)
        XCTAssertEqual(server.requests(to: "/orders").last?.header("Authorization"), "Bearer secret-token-4711")
    }

    func testNoSubscriptionOutlivesManyDeliveriesAndDisposals() throws {
        let client = makeClient()
        let outbox = try Outbox(directory: directory)
        for round in 1...5 {
            _ = try enqueue(round, client, outbox)
            XCTAssertEqual(deliveries(1, client, outbox).count, 1)
            let idle = client.rx.deliver(outbox, options: fast).subscribe()
            idle.dispose()
        }
        XCTAssertEqual(orders.applied.count, 5)
    }
}

extension Outbox {
    /// The entry files in `directory` (for tests: what a restart would find).
    static func entriesOnDisk(_ directory: URL) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".entry") }.count
    }
}
