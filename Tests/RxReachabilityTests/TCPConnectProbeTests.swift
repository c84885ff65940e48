import Dispatch
import Foundation
import RxCore
import RxReachability
import RxTesting
import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

final class TCPConnectProbeTests: RxTestCase {
    /// Runs one probe and waits for its result (or `wait` seconds); returns it and the elapsed time.
    private func runProbe(
        _ prober: TCPConnectProbe = TCPConnectProbe(),
        host: String, port: UInt16, timeout: TimeInterval, wait: TimeInterval = 3
    ) -> (result: Result<Void, Error>?, elapsed: TimeInterval) {
        let outcome = LockedBox<Result<Void, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let start = Date()
        let probe = prober.probe(host: host, port: port, timeout: timeout) { result in
            outcome.mutate { $0 = result }
            done.signal()
        }
        _ = done.wait(timeout: .now() + wait)
        let elapsed = Date().timeIntervalSince(start)
        probe.dispose()
        return (outcome.value, elapsed)
    }

    private func probeError(_ result: Result<Void, Error>?, file: StaticString = #filePath, line: UInt = #line) -> TCPProbeError? {
        guard case .failure(let error)? = result else {
            XCTFail("expected a failure, got \(String(describing: result))", file: file, line: line)
            return nil
        }
        guard let probeError = error as? TCPProbeError else {
            XCTFail("expected a TCPProbeError, got \(error)", file: file, line: line)
            return nil
        }
        return probeError
    }

    func testProbeOfAListeningIPv4PortSucceeds() throws {
        let listener = try LoopbackListener()
        let (result, elapsed) = runProbe(host: "127.0.0.1", port: listener.port, timeout: 1)
        guard case .success? = result else { return XCTFail("expected success, got \(String(describing: result))") }
        XCTAssertLessThan(elapsed, 0.5)
    }

    func testProbeOfAClosedPortFailsAtOnceWithConnectionRefused() throws {
        let listener = try LoopbackListener()
        listener.close()
        let (result, elapsed) = runProbe(host: "127.0.0.1", port: listener.port, timeout: 1)
        let error = probeError(result)
        XCTAssertEqual(error?.code, .connectFailed)
        XCTAssertEqual(error?.systemError, ECONNREFUSED)
        XCTAssertLessThan(elapsed, 0.5, "a refusal is not a timeout")
    }

    func testProbeOfAListeningIPv6LoopbackPortSucceedsAndAClosedOneIsRefused() throws {
        let listener: LoopbackListener
        do {
            listener = try LoopbackListener(family: .ipv6)
        } catch {
            throw XCTSkip("no IPv6 loopback on this machine: \(error)")
        }
        let (result, _) = runProbe(host: "::1", port: listener.port, timeout: 1)
        guard case .success? = result else { return XCTFail("expected success, got \(String(describing: result))") }
        listener.close()
        let refused = probeError(runProbe(host: "::1", port: listener.port, timeout: 1).result)
        XCTAssertEqual(refused?.code, .connectFailed)
        XCTAssertEqual(refused?.systemError, ECONNREFUSED)
    }

    func testNameResolvingToSeveralAddressesSucceedsIfAnyConnects() throws {
        // "localhost" may resolve to ::1 and 127.0.0.1; only the IPv4 one listens.
        let listener = try LoopbackListener(family: .ipv4)
        let (result, _) = runProbe(host: "localhost", port: listener.port, timeout: 1)
        guard case .success? = result else { return XCTFail("expected success, got \(String(describing: result))") }
        listener.close()
        let refused = probeError(runProbe(host: "localhost", port: listener.port, timeout: 1).result)
        XCTAssertEqual(refused?.code, .connectFailed)
    }

    func testUnresolvableHostFailsWithoutHanging() {
        let (result, elapsed) = runProbe(host: "nonexistent.invalid", port: 80, timeout: 1, wait: 3)
        let error = probeError(result)
        // Without DNS the resolver may itself take longer than the timeout: then the deadline wins.
        XCTAssertTrue(error?.code == .resolutionFailed || error?.code == .timedOut, "\(String(describing: error))")
        XCTAssertLessThan(elapsed, 1.5, "the probe must end by its deadline")
    }

    func testHostNameWithNulFailsResolution() {
        let error = probeError(runProbe(host: "local\u{0}host", port: 80, timeout: 1).result)
        XCTAssertEqual(error?.code, .resolutionFailed)
    }

    func testProbeOfABlackHoleTimesOutAtItsDeadline() throws {
        let hole = try BlackHole.make()
        defer { hole.close() }
        let (result, elapsed) = runProbe(host: "127.0.0.1", port: hole.port, timeout: 0.3)
        let error = probeError(result)
        XCTAssertEqual(error?.code, .timedOut)
        XCTAssertEqual(error?.systemError, ETIMEDOUT)
        XCTAssertGreaterThanOrEqual(elapsed, 0.29)
        XCTAssertLessThan(elapsed, 0.6)
    }

    func testCancellingAProbeNeverCompletesAndClosesItsSocket() throws {
        let hole = try BlackHole.make()
        defer { hole.close() }
        // The black hole's filler connection is aimed at the same port: count from there.
        let before = openSockets(toPorts: [hole.port])
        let completed = LockedBox(false)
        let probe = TCPConnectProbe().probe(host: "127.0.0.1", port: hole.port, timeout: 5) { _ in
            completed.mutate { $0 = true }
        }
        Thread.sleep(forTimeInterval: 0.05)
        if let before {
            XCTAssertEqual(openSockets(toPorts: [hole.port]), before + 1, "one connecting socket in flight")
        }
        probe.dispose()
        if let before {
            XCTAssertTrue(waitUntil(timeout: 1) { openSockets(toPorts: [hole.port]) == before }, "socket closed on cancel")
        }
        Thread.sleep(forTimeInterval: 0.05)
        XCTAssertFalse(completed.value)
    }

    func testSingleFormSucceedsForAnOpenPortAndFailsForAClosedOne() throws {
        let listener = try LoopbackListener()
        let prober = TCPConnectProbe()
        let events = LockedBox<[String]>([])
        let done = DispatchSemaphore(value: 0)
        let subscription = prober.probe(host: "127.0.0.1", port: listener.port, timeout: 1)
            .subscribe(onSuccess: { events.mutate { $0.append("up") }; done.signal() },
                       onFailure: { _ in events.mutate { $0.append("down") }; done.signal() })
        XCTAssertEqual(done.wait(timeout: .now() + 2), .success)
        subscription.dispose()
        listener.close()
        let second = prober.probe(host: "127.0.0.1", port: listener.port, timeout: 1)
            .subscribe(onSuccess: { events.mutate { $0.append("up") }; done.signal() },
                       onFailure: { _ in events.mutate { $0.append("down") }; done.signal() })
        XCTAssertEqual(done.wait(timeout: .now() + 2), .success)
        second.dispose()
        XCTAssertEqual(events.value, ["up", "down"])
    }

    func testNoDescriptorLeakAfterTwoThousandProbesOfOpenAndClosedPorts() throws {
        guard let before = openDescriptorCount() else { throw XCTSkip("no /proc/self/fd") }
        let open = try LoopbackListener()
        let closed = try LoopbackListener()
        closed.close()
        let afterSetup = try XCTUnwrap(openDescriptorCount())
        let prober = TCPConnectProbe()
        let outcomes = LockedBox((succeeded: 0, refused: 0, other: 0))
        let total = 2_000
        let batch = 100
        for start in stride(from: 0, to: total, by: batch) {
            let group = DispatchGroup()
            var probes: [Disposable] = []
            for index in start..<(start + batch) {
                group.enter()
                let port = index.isMultiple(of: 2) ? open.port : closed.port
                probes.append(prober.probe(host: "127.0.0.1", port: port, timeout: 2) { result in
                    outcomes.mutate { counts in
                        switch result {
                        case .success: counts.succeeded += 1
                        case .failure(let error as TCPProbeError) where error.systemError == ECONNREFUSED:
                            counts.refused += 1
                        case .failure: counts.other += 1
                        }
                    }
                    group.leave()
                })
            }
            XCTAssertEqual(group.wait(timeout: .now() + 5), .success)
            probes.forEach { $0.dispose() }
        }
        // Exact for the probes that connected: their sockets are the only ones aimed at these ports.
        // For the refused ones (no longer in the TCP table) the process-wide count must not have
        // grown; it may shrink, as descriptors of earlier tests close in the background.
        let ports: Set<UInt16> = [open.port, closed.port]
        let settled = waitUntil(timeout: 2) {
            openSockets(toPorts: ports) == 0 && (openDescriptorCount() ?? .max) <= afterSetup
        }
        let after = openDescriptorCount()
        print("fd count: \(before) before, \(afterSetup) with listener, \(after ?? -1) after \(total) probes; \(outcomes.value)")
        XCTAssertTrue(
            settled,
            "descriptors before \(afterSetup), after \(after ?? -1); \(openSockets(toPorts: ports) ?? -1) probe sockets open"
        )
        XCTAssertEqual(outcomes.value.succeeded, total / 2)
        XCTAssertEqual(outcomes.value.refused, total / 2)
        XCTAssertEqual(outcomes.value.other, 0)
    }

    func testHundredsOfProbesInFlightNeedNoThreadPerProbe() throws {
        let hole = try BlackHole.make()
        defer { hole.close() }
        guard let threadsBefore = threadCount() else { throw XCTSkip("no /proc/self/task") }
        let prober = TCPConnectProbe()
        let count = 300
        let group = DispatchGroup()
        let timedOut = LockedBox(0)
        var probes: [Disposable] = []
        for _ in 0..<count {
            group.enter()
            probes.append(prober.probe(host: "127.0.0.1", port: hole.port, timeout: 0.4) { result in
                if case .failure(let error as TCPProbeError) = result, error.code == .timedOut {
                    timedOut.mutate { $0 += 1 }
                }
                group.leave()
            })
        }
        Thread.sleep(forTimeInterval: 0.2)
        let threadsDuring = threadCount() ?? 0
        XCTAssertEqual(group.wait(timeout: .now() + 3), .success)
        probes.forEach { $0.dispose() }
        print("threads: \(threadsBefore) before, \(threadsDuring) with \(count) probes in flight")
        XCTAssertEqual(timedOut.value, count)
        XCTAssertLessThan(threadsDuring - threadsBefore, 16, "probes wait on Dispatch sources, not threads")
    }
}

/// A port whose SYNs are dropped: a listener with a backlog of 0 that never accepts, filled by one
/// client connection. Deterministic on Linux (a full accept queue drops SYNs); the factory checks
/// it and skips the test when the kernel behaves otherwise.
struct BlackHole {
    let listener: LoopbackListener
    let filler: Int32
    var port: UInt16 { listener.port }

    static func make() throws -> BlackHole {
        let listener = try LoopbackListener(accepting: false, backlog: 0)
        var fillers: [Int32] = []
        // Fill the accept queue (backlog 0 admits one connection on Linux, more elsewhere).
        for _ in 0..<4 {
            let fd = startRawConnect(host: "127.0.0.1", port: listener.port)
            if rawConnectCompleted(fd, within: 0.1) {
                fillers.append(fd)
            } else {
                // This one hangs: the port is a black hole.
                _ = closeDescriptor(fd)
                return BlackHole(listener: listener, filler: fillers.first ?? -1, extra: Array(fillers.dropFirst()))
            }
        }
        fillers.forEach { _ = closeDescriptor($0) }
        listener.close()
        throw XCTSkip("cannot make a deterministic black hole on this machine")
    }

    private let extra: [Int32]

    private init(listener: LoopbackListener, filler: Int32, extra: [Int32]) {
        self.listener = listener
        self.filler = filler
        self.extra = extra
    }

    func close() {
        if filler >= 0 { _ = closeDescriptor(filler) }
        extra.forEach { _ = closeDescriptor($0) }
        listener.close()
    }
}
