import Foundation
#if PostgreSQL
import PostgresNIO
#endif
import RxCore
@testable import RxHTTP
import RxTesting
import Synchronization
import XCTest

/// The outbox across real deaths: a child process (this test binary started again in a child
/// mode) enqueues orders and delivers them to this process's server, which applies each
/// `Idempotency-Key` once; the test kills the child with SIGKILL right after an `enqueue` succeeded,
/// while a request is on the wire, after the server applied an order but before its answer was
/// recorded, between handing an outcome over and removing the entry, and at random instants; then
/// starts it again until the outbox is empty. Every acknowledged order is applied exactly once, no
/// order twice, every entry's outcome reported — a second time only with `isRecovered`. With the
/// trait `PostgreSQL` each scenario runs again on a fleet's outbox in a real database, where a dead
/// child's claims pass to the next one when their one-second lease runs out.
final class OutboxProcessTests: LoopbackClientTestCase {
    private var directory: URL!
    /// Where the outbox is: nil for the test's directory, or `postgres://…#namespace`.
    private var place: String?
    private var logFile: URL!
    private let orders = IdempotentOrderServer()

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rxnk-outbox-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logFile = directory.appendingPathComponent("children.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        _ = FileManager.default.createFile(atPath: directory.appendingPathComponent("child-output.log").path, contents: nil)
        orders.install(on: server)
    }

    override func tearDown() {
        super.tearDown()
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: The parent

    private func child(orders: ClosedRange<Int>?, killAfterDelivery: Int? = nil) throws -> Process {
        guard let executable = CommandLine.arguments.first, executable.hasSuffix(".xctest") || executable.contains("PackageTests") else {
            throw XCTSkip("the test binary's path is not known")
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = ["RxHTTPTests.OutboxProcessTests/testChildProcess"]
        var environment = ProcessInfo.processInfo.environment
        environment["RXNK_OUTBOX_DIR"] = directory.appendingPathComponent("outbox").path
        environment["RXNK_OUTBOX_URL"] = server.baseURL.absoluteString
        environment["RXNK_OUTBOX_LOG"] = logFile.path
        environment["RXNK_OUTBOX_ORDERS"] = orders.map { "\($0.lowerBound)-\($0.upperBound)" } ?? ""
        environment["RXNK_OUTBOX_KILL_AFTER_DELIVERY"] = killAfterDelivery.map(String.init) ?? ""
        environment["RXNK_OUTBOX_PLACE"] = place ?? ""
        child.environment = environment
        let output = try FileHandle(forWritingTo: directory.appendingPathComponent("child-output.log"))
        output.seekToEndOfFile()
        child.standardOutput = output
        child.standardError = output
        try child.run()
        return child
    }

    private func lines() -> [[Substring]] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map { $0.split(separator: " ") }
    }

    private func acknowledged() -> Int {
        lines().filter { $0.first == "E" }.count
    }

    private func waitForExit(_ child: Process, timeout: TimeInterval = 60) {
        XCTAssertTrue(waitUntil(timeout: timeout) { !child.isRunning }, "the child ended")
        child.waitUntilExit()
    }

    /// Kills `child` with SIGKILL; `racing` when it may have finished on its own just before.
    private func kill(_ child: Process, racing: Bool = false) {
        Glibc.kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        if !racing { XCTAssertEqual(child.terminationReason, .uncaughtSignal) }
    }

    /// Starts children with no new orders until one ends with the outbox empty, then checks.
    private func finishAndVerify(file: StaticString = #filePath, line: UInt = #line) throws {
        orders.hooks()
        let last = try child(orders: nil)
        waitForExit(last)
        XCTAssertEqual(last.terminationStatus, 0, "the last child finished", file: file, line: line)
        try verify(file: file, line: line)
    }

    private func verify(file: StaticString, line: UInt) throws {
        let log = lines()
        let enqueued = log.filter { $0.first == "E" && $0.count == 4 }
        let delivered = log.filter { $0.first == "D" && $0.count == 4 }
        XCTAssertEqual(log.last.map { $0.joined(separator: " ") }, "DONE", file: file, line: line)
        let applied = orders.applied
        // No order applied twice: one key per order, and the server applies a key once.
        XCTAssertEqual(Set(applied.map(\.order)).count, applied.count, "an order applied twice: \(applied)", file: file, line: line)
        // Every acknowledged order applied, under the key its entry had.
        let appliedKeys = Dictionary(applied.map { ($0.order, $0.key) }) { first, _ in first }
        for entry in enqueued {
            guard let order = Int(entry[1]) else { continue }
            XCTAssertEqual(appliedKeys[order].map { Substring($0) }, entry[3], "order \(order) applied with its key", file: file, line: line)
        }
        // Every acknowledged entry's outcome reported; more than once only as recovered.
        for entry in enqueued {
            let reports = delivered.filter { $0[1] == entry[2] }
            XCTAssertFalse(reports.isEmpty, "entry \(entry[2]) reported", file: file, line: line)
            XCTAssertTrue(reports.allSatisfy { $0[2] == "201" }, "\(reports)", file: file, line: line)
            XCTAssertTrue(reports.dropFirst().allSatisfy { $0[3] == "1" }, "a repeat is marked recovered: \(reports)", file: file, line: line)
        }
        XCTAssertEqual(try remaining(), 0, "the outbox is empty", file: file, line: line)
        print("orders acknowledged \(enqueued.count), applied \(applied.count), requests \(orders.requests), outcomes reported \(delivered.count) (recovered \(delivered.filter { $0[3] == "1" }.count))")
    }

    func testKilledRightAfterEnqueueSucceeds() throws {
        try killedRightAfterEnqueueSucceeds()
    }

    private func killedRightAfterEnqueueSucceeds() throws {
        // The server is slow to apply, so that entries wait in the outbox when the child dies.
        orders.hooks(received: { _ in Thread.sleep(forTimeInterval: 0.05); return true })
        let first = try child(orders: 1...12)
        XCTAssertTrue(waitUntil(timeout: 30) { self.acknowledged() >= 5 })
        kill(first)
        XCTAssertGreaterThanOrEqual(try remaining(), 1, "entries waited")
        try finishAndVerify()
    }

    func testKilledWhileARequestIsOnTheWire() throws {
        try killedWhileARequestIsOnTheWire()
    }

    private func killedWhileARequestIsOnTheWire() throws {
        let victim = Mutex<Process?>(nil)
        orders.hooks(received: { number in
            guard number == 3, let process = victim.withLock({ $0 }) else { return true }
            Glibc.kill(process.processIdentifier, SIGKILL)
            return false
        })
        let first = try child(orders: 1...8)
        victim.withLock { $0 = first }
        waitForExit(first)
        XCTAssertEqual(first.terminationReason, .uncaughtSignal)
        try finishAndVerify()
    }

    func testKilledAfterTheServerAppliedBeforeTheAnswerWasRecorded() throws {
        try killedAfterTheServerAppliedBeforeTheAnswerWasRecorded()
    }

    private func killedAfterTheServerAppliedBeforeTheAnswerWasRecorded() throws {
        let victim = Mutex<Process?>(nil)
        orders.hooks(applied: { number in
            guard number == 4, let process = victim.withLock({ $0 }) else { return }
            Glibc.kill(process.processIdentifier, SIGKILL)
        })
        let first = try child(orders: 1...8)
        victim.withLock { $0 = first }
        waitForExit(first)
        XCTAssertEqual(first.terminationReason, .uncaughtSignal)
        let appliedAtDeath = try XCTUnwrap(orders.applied.last)
        try finishAndVerify()
        XCTAssertEqual(orders.applied.filter { $0.order == appliedAtDeath.order }.count, 1, "sent again after the death, applied once")
    }

    func testKilledBetweenHandingOverAndRemovingTheEntryHandsItOverOnceMoreAsRecovered() throws {
        try killedBetweenHandingOverAndRemovingTheEntryHandsItOverOnceMoreAsRecovered()
    }

    private func killedBetweenHandingOverAndRemovingTheEntryHandsItOverOnceMoreAsRecovered() throws {
        let first = try child(orders: 1...6, killAfterDelivery: 3)
        waitForExit(first)
        XCTAssertEqual(first.terminationReason, .uncaughtSignal)
        let seen = lines().filter { $0.first == "D" }
        XCTAssertEqual(seen.count, 3)
        try finishAndVerify()
        let third = try XCTUnwrap(seen.last)
        let reports = lines().filter { $0.first == "D" && $0[1] == third[1] }
        XCTAssertEqual(reports.map { $0[3] }, ["0", "1"], "seen once more, as recovered")
    }

    func testKilledAtRandomInstantsAgainAndAgain() throws {
        try killedAtRandomInstantsAgainAndAgain()
    }

    private func killedAtRandomInstantsAgainAndAgain() throws {
        orders.hooks(received: { _ in Thread.sleep(forTimeInterval: Double.random(in: 0...0.02)); return true })
        var next = 1
        for round in 0..<4 {
            let process = try child(orders: next...(next + 9))
            next += 10
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.4))
            kill(process, racing: true)
            if process.terminationReason == .exit { print("round \(round): the child finished first") }
        }
        try finishAndVerify()
    }

    /// Entries left in the outbox: files in the directory, or rows in the database.
    private func remaining() throws -> Int {
        guard let place else { return try Outbox.entriesOnDisk(directory.appendingPathComponent("outbox")) }
        #if PostgreSQL
        guard let address = PostgresURL(place), let namespace = address.fragment else { throw XCTSkip("not a place: \(place)") }
        let postgres = PostgresClient(configuration: address.configuration)
        let count = Mutex<Result<Int, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let running = Task { await postgres.run() }
            do {
                let rows = try await postgres.query(
                    "SELECT count(*)::int8 FROM rxnetworkkit_outbox WHERE namespace = \(namespace) AND outbox = 'orders' AND skipped IS NULL"
                )
                var value = 0
                for try await entries in rows.decode(Int.self) { value = entries }
                count.withLock { $0 = .success(value) }
            } catch {
                count.withLock { $0 = .failure(error) }
            }
            running.cancel()
            done.signal()
        }
        done.wait()
        return try XCTUnwrap(count.withLock { $0 }).get()
        #else
        throw XCTSkip("the trait PostgreSQL is off")
        #endif
    }

    #if PostgreSQL
    /// Runs `scenario` on a fleet's outbox in the database of `RXNK_POSTGRES_URL`, in a namespace of
    /// its own.
    private func onPostgreSQL(_ scenario: () throws -> Void) throws {
        guard let url = ProcessInfo.processInfo.environment["RXNK_POSTGRES_URL"], !url.isEmpty else {
            return XCTFail("the trait PostgreSQL is on but RXNK_POSTGRES_URL is not set (Scripts/postgres.sh start DIR prints one)")
        }
        place = url + "#outbox-" + UUID().uuidString.lowercased()
        try scenario()
    }

    func testOnPostgreSQLKilledRightAfterEnqueueSucceeds() throws {
        try onPostgreSQL(killedRightAfterEnqueueSucceeds)
    }

    func testOnPostgreSQLKilledWhileARequestIsOnTheWire() throws {
        try onPostgreSQL(killedWhileARequestIsOnTheWire)
    }

    func testOnPostgreSQLKilledAfterTheServerAppliedBeforeTheAnswerWasRecorded() throws {
        try onPostgreSQL(killedAfterTheServerAppliedBeforeTheAnswerWasRecorded)
    }

    func testOnPostgreSQLKilledBetweenHandingOverAndRemovingTheEntryHandsItOverOnceMoreAsRecovered() throws {
        try onPostgreSQL(killedBetweenHandingOverAndRemovingTheEntryHandsItOverOnceMoreAsRecovered)
    }

    func testOnPostgreSQLKilledAtRandomInstantsAgainAndAgain() throws {
        try onPostgreSQL(killedAtRandomInstantsAgainAndAgain)
    }
    #endif

    // MARK: The child

    /// The child's work, when started by a test above (otherwise it returns at once): open the
    /// outbox (waiting for the dead child's lock to go), deliver, enqueue the given orders, and
    /// end once the outbox is empty.
    func testChildProcess() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let path = environment["RXNK_OUTBOX_DIR"], let base = environment["RXNK_OUTBOX_URL"].flatMap(URL.init(string:)),
              let logPath = environment["RXNK_OUTBOX_LOG"] else { return }
        let log = open(logPath, O_WRONLY | O_APPEND | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(log, 0)
        defer { Glibc.close(log) }
        @Sendable func say(_ line: String) {
            let bytes = Array((line + "\n").utf8)
            _ = bytes.withUnsafeBytes { Glibc.write(log, $0.baseAddress, $0.count) }
        }
        var orders: [Int] = []
        if let range = environment["RXNK_OUTBOX_ORDERS"], let dash = range.firstIndex(of: "-"),
           let low = Int(range[..<dash]), let high = Int(range[range.index(after: dash)...]), low <= high {
            orders = Array(low...high)
        }
        let killAfter = environment["RXNK_OUTBOX_KILL_AFTER_DELIVERY"].flatMap { Int($0) }
        var opened: Outbox?
        #if PostgreSQL
        var fleetAndClient: (Fleet, PostgresClient, Task<Void, Never>)?
        if let place = environment["RXNK_OUTBOX_PLACE"], let address = PostgresURL(place), let namespace = address.fragment {
            let postgres = PostgresClient(configuration: address.configuration)
            let running = Task { await postgres.run() }
            let fleet = try Fleet.postgreSQL(postgres, namespace: namespace, heartbeatInterval: 0.2)
            fleetAndClient = (fleet, postgres, running)
            opened = try fleet.outbox(named: "orders", lease: 1, pollInterval: 0.05)
        }
        defer { fleetAndClient?.2.cancel() }
        #endif
        let deadline = Date().addingTimeInterval(10)
        while opened == nil, Date() < deadline {
            opened = try? Outbox(directory: URL(fileURLWithPath: path))
            if opened == nil { usleep(10_000) }
        }
        let outbox = try XCTUnwrap(opened)
        let client = HTTPClient(baseURL: base, configuration: .init(timeout: 5, retryPolicy: RetryPolicy(maxAttempts: 2, delay: .constant(time: 0.02))))
        let count = Mutex(0)
        let subscription = client.rx.deliver(outbox, options: OutboxDeliveryOptions(redeliveryDelay: .constant(time: 0.05), redeliversWhenReachable: false))
            .subscribe(onNext: { delivery in
                let status: Int?
                switch delivery.result {
                case .success(let response): status = response.statusCode
                case .failure(let error): status = error.statusCode
                }
                say("D \(delivery.entry.id.uuidString) \(status.map(String.init) ?? "-") \(delivery.isRecovered ? 1 : 0)")
                if count.withLock({ $0 += 1; return $0 }) == killAfter {
                    Glibc.kill(getpid(), SIGKILL)
                }
            })
        for order in orders {
            let stored = DispatchSemaphore(value: 0)
            let entry = Mutex<OutboxEntry?>(nil)
            let enqueueing = client.rx.enqueue(CreateOrder(order: order), in: outbox).subscribe(onSuccess: { value in
                entry.withLock { $0 = value }
                stored.signal()
            }, onFailure: { _ in stored.signal() })
            stored.wait()
            enqueueing.dispose()
            let value = try XCTUnwrap(entry.withLock { $0 })
            say("E \(order) \(value.id.uuidString) \(value.idempotencyKey)")
        }
        let end = Date().addingTimeInterval(30)
        while outbox.depth > 0, Date() < end { usleep(5_000) }
        XCTAssertEqual(outbox.depth, 0)
        subscription.dispose()
        // The last removals reach the disk (the next flush) before the process ends.
        outbox.close()
        say("DONE")
    }
}
