// Runs with the package trait `PostgreSQL` only, against the real server named by
// RXNK_POSTGRES_URL (`url="$(Scripts/postgres.sh start DIR)"` starts one).
#if PostgreSQL
import Foundation
import PostgresNIO
import RxCore
@testable import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// A fleet's outbox in a real database: two replicas (two fleets, two clients) in a fresh
/// namespace share one outbox — every entry delivered once, an origin's entries in order —;
/// bounds across replicas; a damaged row set aside; a same-host fleet has none.
final class PostgreSQLOutboxTests: LoopbackClientTestCase {
    private var clients: [PostgresClient] = []
    private var running: [Task<Void, Never>] = []
    private var fleets: [Fleet] = []
    private var namespace = ""
    private let orders = IdempotentOrderServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        guard let url = ProcessInfo.processInfo.environment["RXNK_POSTGRES_URL"], let address = PostgresURL(url) else {
            throw XCTSkip("RXNK_POSTGRES_URL is not set (Scripts/postgres.sh start DIR prints one)")
        }
        namespace = "outbox-" + UUID().uuidString.lowercased()
        for _ in 0..<2 {
            let client = PostgresClient(configuration: address.configuration)
            clients.append(client)
            running.append(Task { await client.run() })
            fleets.append(try Fleet.postgreSQL(client, namespace: namespace, heartbeatInterval: 0.2))
        }
        orders.install(on: server)
    }

    override func tearDown() {
        let left = DispatchSemaphore(value: 0)
        let (fleets, running) = (self.fleets, self.running)
        Task {
            for fleet in fleets { await fleet.leave() }
            for task in running { task.cancel() }
            left.signal()
        }
        left.wait()
        self.fleets = []
        super.tearDown()
    }

    private func makeClient() -> HTTPClient {
        HTTPClient(baseURL: server.baseURL, configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 1)))
    }

    private let fast = OutboxDeliveryOptions(redeliveryDelay: .constant(time: 0.02), jitter: .none, redeliversWhenReachable: false)

    func testTwoReplicasShareTheOutboxAndDeliverEachEntryOnceInOrder() throws {
        let (first, second) = (makeClient(), makeClient())
        let outboxes = try fleets.map { try $0.outbox(named: "orders", lease: 2, pollInterval: 0.05) }
        let delivered = Mutex<[(replica: Int, delivery: OutboxDelivery)]>([])
        let all = expectation(description: "12 outcomes")
        let subscriptions = [first, second].enumerated().map { replica, client in
            client.rx.deliver(outboxes[replica], options: fast).subscribe(onNext: { delivery in
                if delivered.withLock({ $0.append((replica, delivery)); return $0.count }) == 12 { all.fulfill() }
            })
        }
        var acknowledged: [OutboxEntry] = []
        for order in 1...12 {
            // Enqueued by either replica.
            let client = order.isMultiple(of: 2) ? first : second
            guard case .success(let entry)? = result(of: client.rx.enqueue(CreateOrder(order: order), in: outboxes[order % 2])) else {
                return XCTFail("stored")
            }
            acknowledged.append(entry)
        }
        wait(for: [all], timeout: 20)
        XCTAssertTrue(waitUntil(timeout: 5) { outboxes.allSatisfy { $0.depth == 0 } }, "the table is empty")
        for subscription in subscriptions { subscription.dispose() }
        let seen = delivered.withLock { $0 }
        XCTAssertEqual(Set(seen.map(\.delivery.entry.id)), Set(acknowledged.map(\.id)), "every entry's outcome, once in all")
        XCTAssertEqual(seen.count, 12)
        XCTAssertEqual(orders.applied.map(\.order), Array(1...12), "one origin: in order across the replicas")
        print("deliveries by replica: \(seen.filter { $0.replica == 0 }.count) and \(seen.filter { $0.replica == 1 }.count)")
    }

    func testBoundsHoldForTheWholeFleet() throws {
        let client = makeClient()
        let outboxes = try fleets.map { try $0.outbox(named: "small", maxEntries: 2, pollInterval: 0.05) }
        guard case .success? = result(of: client.rx.enqueue(CreateOrder(order: 1), in: outboxes[0])),
              case .success? = result(of: client.rx.enqueue(CreateOrder(order: 2), in: outboxes[1])) else { return XCTFail("stored") }
        let refused = failure(result(of: client.rx.enqueue(CreateOrder(order: 3), in: outboxes[0])))
        XCTAssertEqual(refused?.code, .rejected)
        XCTAssertThrowsError(try fleets[0].outbox(named: "", pollInterval: 0.05))
        XCTAssertThrowsError(try fleets[0].outbox(named: "x", lease: 0))
    }

    func testADamagedRowIsSetAsideReportedAndNeverSent() throws {
        let client = makeClient()
        let outbox = try fleets[0].outbox(named: "damaged", lease: 2, pollInterval: 0.05)
        guard case .success(let kept)? = result(of: client.rx.enqueue(CreateOrder(order: 1), in: outbox)) else { return XCTFail("stored") }
        let damaged = UUID()
        let record = Data("RXNKOBX garbage".utf8)
        let inserted = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let (postgres, namespace) = (clients[0], self.namespace)
        Task {
            do {
                try await postgres.query(
                    """
                    INSERT INTO rxnetworkkit_outbox (namespace, outbox, id, origin, record, bytes, enqueued_at)
                    VALUES (\(namespace), 'damaged', \(damaged), 'http://127.0.0.1:1', \(record), \(record.count), 0)
                    """
                )
            } catch {
                failure.withLock { $0 = error }
            }
            inserted.signal()
        }
        inserted.wait()
        XCTAssertNil(failure.withLock { $0 })
        let seen = Mutex<[UUID]>([])
        let subscription = client.rx.deliver(outbox, options: fast).subscribe(onNext: { delivery in
            seen.withLock { $0.append(delivery.entry.id) }
        })
        XCTAssertTrue(waitUntil(timeout: 10) { seen.withLock { $0 } == [kept.id] && outbox.skippedRecords.count == 1 })
        subscription.dispose()
        XCTAssertEqual(outbox.skippedRecords.first?.fileName, damaged.uuidString)
        XCTAssertEqual(orders.applied.map(\.order), [1])
    }

    func testASameHostFleetHasNoSharedOutbox() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-fleet-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fleet = try Fleet.sameHost(directory: directory)
        XCTAssertThrowsError(try fleet.outbox(named: "orders")) { error in
            XCTAssertEqual((error as? HTTPClientError)?.code, .unsupported)
        }
        let left = DispatchSemaphore(value: 0)
        Task {
            await fleet.leave()
            left.signal()
        }
        left.wait()
    }
}
#endif
