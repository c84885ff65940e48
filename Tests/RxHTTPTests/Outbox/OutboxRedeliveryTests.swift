import Foundation
import RxCore
import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// The waits between sends of an outbox entry, in virtual time (one tick is one second): the
/// options' delay grows with each failure in a row, a `Retry-After` raises it, and the outcome is
/// recorded and handed over after the last send, every send with the entry's one key.
final class OutboxRedeliveryTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    private lazy var stub = StubTransport(scheduler: scheduler)
    private var directory: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-outbox-virtual-\(UUID().uuidString)")
    }

    override func tearDown() {
        super.tearDown()
        try? FileManager.default.removeItem(at: directory)
    }

    func testWaitsGrowWithEachFailureAndRetryAfterRaisesThem() throws {
        var policy = RetryPolicy(maxAttempts: 1)
        policy.retriesWhenReachable = false
        let client = HTTPClient(
            baseURL: URL(string: "https://api.test")!,
            configuration: .init(retryPolicy: policy, callbackScheduler: scheduler, scheduler: scheduler), transport: stub
        )
        let sent = Mutex<[Int]>([])
        let answers = Mutex<[StubResponse]>([
            .status(503), .connectionRefused(), .status(503, headers: ["Retry-After": "10"]), .status(201, body: Data("{}".utf8)),
        ])
        stub.stub(where: { _ in true }, respond: { [scheduler] _ in
            sent.withLock { $0.append(scheduler.clock) }
            return answers.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
        })
        let outbox = try Outbox(directory: directory)
        let stored = DispatchSemaphore(value: 0)
        _ = client.rx.enqueue(CreateOrder(order: 1), in: outbox).subscribe(onSuccess: { _ in stored.signal() }, onFailure: { _ in stored.signal() })
        XCTAssertEqual(stored.wait(timeout: .now() + 5), .success)
        let delivered = expectation(description: "delivered")
        let outcome = Mutex<OutboxDelivery?>(nil)
        let subscription = client.rx.deliver(outbox, options: OutboxDeliveryOptions(
            redeliveryDelay: .exponential(initial: 1, multiplier: 2, maxDelay: 60), jitter: .none, redeliversWhenReachable: false
        )).subscribe(onNext: { delivery in
            outcome.withLock { $0 = delivery }
            delivered.fulfill()
        })
        scheduler.advanceTo(100)
        wait(for: [delivered], timeout: 5)
        subscription.dispose()
        // 0; +1 s; +2 s; +10 s (the Retry-After, not the 4 s of the third wait).
        XCTAssertEqual(sent.withLock { $0 }, [0, 1, 3, 13])
        guard case .success(let response)? = outcome.withLock({ $0 })?.result else { return XCTFail("answered") }
        XCTAssertEqual(response.statusCode, 201)
        let keys = Set(stub.sentTransportRequests.map { $0.headers["Idempotency-Key"] })
        XCTAssertEqual(keys.count, 1)
        XCTAssertNotNil(keys.first ?? nil)
    }
}
