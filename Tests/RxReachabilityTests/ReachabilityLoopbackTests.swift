import Foundation
import RxCore
import RxReachability
import RxTesting
import XCTest

/// Reachability against real sockets on the loopback interface, with short real-time intervals.
final class ReachabilityLoopbackTests: RxTestCase {
    func testDetectsUpThenDownWithinAnIntervalPlusTimeoutThenUpAgainWithinAnInterval() throws {
        let listener = try LoopbackListener()
        let interval = 0.1
        let timeout = 0.3
        let reachability = Reachability(host: listener.host, port: listener.port, probeInterval: interval, timeout: timeout)
        let recorder = StatusRecorder()
        let subscription = recorder.subscribe(to: reachability)

        XCTAssertNotNil(recorder.waitForStatus(number: 1, timeout: 0.3), "first probe runs at once")
        XCTAssertEqual(reachability.currentStatus, .reachable)

        let wentDown = Date()
        listener.close()
        let down = try XCTUnwrap(recorder.waitForStatus(number: 2, timeout: 1))
        XCTAssertLessThan(down.timeIntervalSince(wentDown), interval + timeout + 0.1)
        XCTAssertEqual((reachability.lastProbeError as? TCPProbeError)?.code, .connectFailed)

        let cameBack = Date()
        try listener.reopen()
        let up = try XCTUnwrap(recorder.waitForStatus(number: 3, timeout: 1))
        XCTAssertLessThan(up.timeIntervalSince(cameBack), interval + 0.15)
        XCTAssertTrue(waitUntil(timeout: 0.2) { recorder.becameReachable.value.count == 1 })

        subscription.dispose()
        XCTAssertEqual(recorder.statusValues, [.reachable, .unreachable, .reachable])
        XCTAssertEqual(recorder.becameReachable.value.count, 1)
        XCTAssertFalse(reachability.isProbing)
        XCTAssertNil(reachability.currentStatus, "the status is forgotten when probing stops")
    }

    func testDetectsAnIPv6LoopbackListenerGoingDownAndUp() throws {
        let listener: LoopbackListener
        do {
            listener = try LoopbackListener(family: .ipv6)
        } catch {
            throw XCTSkip("no IPv6 loopback on this machine: \(error)")
        }
        let reachability = Reachability(host: "::1", port: listener.port, probeInterval: 0.1, timeout: 0.3)
        let recorder = StatusRecorder()
        let subscription = recorder.subscribe(to: reachability)
        XCTAssertNotNil(recorder.waitForStatus(number: 1, timeout: 0.3))
        listener.close()
        XCTAssertNotNil(recorder.waitForStatus(number: 2, timeout: 1))
        try listener.reopen()
        XCTAssertNotNil(recorder.waitForStatus(number: 3, timeout: 1))
        subscription.dispose()
        XCTAssertEqual(recorder.statusValues, [.reachable, .unreachable, .reachable])
        XCTAssertTrue(waitUntil(timeout: 0.2) { recorder.becameReachable.value.count == 1 })
    }

    func testUnresolvableHostIsUnreachableWithoutHanging() throws {
        let reachability = Reachability(host: "nonexistent.invalid", port: 80, probeInterval: 0.1, timeout: 0.5)
        let recorder = StatusRecorder()
        let start = Date()
        let subscription = recorder.subscribe(to: reachability)
        let first = try XCTUnwrap(recorder.waitForStatus(number: 1, timeout: 1.5))
        subscription.dispose()
        XCTAssertLessThan(first.timeIntervalSince(start), 0.5 + 0.2)
        XCTAssertEqual(recorder.statusValues, [.unreachable])
        XCTAssertEqual(recorder.becameReachable.value.count, 0)
    }

    func testBlackHoleIsUnreachableAfterTheTimeout() throws {
        let hole = try BlackHole.make()
        defer { hole.close() }
        let reachability = Reachability(host: "127.0.0.1", port: hole.port, probeInterval: 0.1, timeout: 0.2)
        let recorder = StatusRecorder()
        let start = Date()
        let subscription = recorder.subscribe(to: reachability)
        let first = try XCTUnwrap(recorder.waitForStatus(number: 1, timeout: 1))
        XCTAssertEqual((reachability.lastProbeError as? TCPProbeError)?.code, .timedOut)
        subscription.dispose()
        XCTAssertEqual(recorder.statusValues, [.unreachable])
        XCTAssertGreaterThanOrEqual(first.timeIntervalSince(start), 0.19)
        XCTAssertLessThan(first.timeIntervalSince(start), 0.5)
    }

    func testNoProbeReachesTheServerAfterTheLastDispose() throws {
        let listener = try LoopbackListener()
        let reachability = Reachability(host: listener.host, port: listener.port, probeInterval: 0.02, timeout: 0.3)
        let first = reachability.status.subscribe()
        let second = reachability.didBecomeReachable.subscribe()
        XCTAssertTrue(waitUntil(timeout: 1) { listener.acceptedCount >= 3 }, "probes every 20 ms")
        first.dispose()
        let whileOneRemains = listener.acceptedCount
        XCTAssertTrue(waitUntil(timeout: 1) { listener.acceptedCount >= whileOneRemains + 2 }, "still probing")
        second.dispose()
        Thread.sleep(forTimeInterval: 0.02)
        let atDispose = listener.acceptedCount
        Thread.sleep(forTimeInterval: 0.15)
        XCTAssertEqual(listener.acceptedCount, atDispose, "no probe after the last dispose")
        XCTAssertFalse(reachability.isProbing)
    }

    /// Measures detection latency for down and up with a 0.2 s interval over a few cycles.
    func testMeasuredDetectionLatenciesWithAPointTwoSecondInterval() throws {
        let listener = try LoopbackListener()
        let interval = 0.2
        let reachability = Reachability(host: listener.host, port: listener.port, probeInterval: interval, timeout: 0.5)
        let recorder = StatusRecorder()
        let subscription = recorder.subscribe(to: reachability)
        XCTAssertNotNil(recorder.waitForStatus(number: 1, timeout: 0.5))
        var downLatencies: [Double] = []
        var upLatencies: [Double] = []
        for cycle in 0..<3 {
            // Change state at a different phase of the probe cycle each time.
            Thread.sleep(forTimeInterval: Double(cycle) * 0.07)
            let wentDown = Date()
            listener.close()
            let down = try XCTUnwrap(recorder.waitForStatus(number: 2 + 2 * cycle, timeout: 1))
            downLatencies.append(down.timeIntervalSince(wentDown))
            Thread.sleep(forTimeInterval: Double(cycle) * 0.05)
            let cameBack = Date()
            try listener.reopen()
            let up = try XCTUnwrap(recorder.waitForStatus(number: 3 + 2 * cycle, timeout: 1))
            upLatencies.append(up.timeIntervalSince(cameBack))
        }
        subscription.dispose()
        func summary(_ values: [Double]) -> String {
            let ms = values.map { Int(($0 * 1_000).rounded()) }
            return "\(ms) ms (max \(ms.max() ?? 0) ms)"
        }
        print("detection latency with probeInterval 0.2 s: down \(summary(downLatencies)), up \(summary(upLatencies))")
        for latency in downLatencies + upLatencies {
            // A refused or an accepted connect is seen within one interval plus a loopback round
            // trip; the slack absorbs timer delays on a loaded machine.
            XCTAssertLessThan(latency, interval + 0.15)
        }
        XCTAssertEqual(recorder.becameReachable.value.count, 3)
    }
}
