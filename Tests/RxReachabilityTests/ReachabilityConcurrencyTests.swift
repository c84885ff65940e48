import Dispatch
import Foundation
import RxCore
import RxReachability
import RxTesting
import XCTest

/// Hammers the shared subscription machinery of `Reachability` from many threads.
final class ReachabilityConcurrencyTests: RxTestCase {
    func testConcurrentSubscribesAndDisposesNeverDuplicateAStatusAndStopProbingAtTheEnd() {
        let flapping = Array(repeating: [StubProber.Answer.reachable, .unreachable], count: 50_000).flatMap { $0 }
        let prober = StubProber(flapping, then: .reachable)
        let probeQueue = DispatchQueue(label: "reachability-race")
        let reachability = Reachability(
            host: "stub", port: 1, probeInterval: 0.0005, timeout: 1,
            scheduler: SerialDispatchQueueScheduler(serialQueue: probeQueue),
            prober: prober
        )
        let violations = LockedBox<[String]>([])
        let received = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<40 {
                let seen = LockedBox<[ReachabilityStatus]>([])
                let status = reachability.status.subscribe(onNext: { status in
                    seen.mutate { $0.append(status) }
                })
                let signal = reachability.didBecomeReachable.subscribe(onNext: {
                    received.mutate { $0 += 1 }
                })
                Thread.sleep(forTimeInterval: 0.0005 * Double((worker + round) % 4))
                if round.isMultiple(of: 2) {
                    status.dispose()
                    signal.dispose()
                } else {
                    signal.dispose()
                    status.dispose()
                }
                let statuses = seen.value
                for (previous, next) in zip(statuses, statuses.dropFirst()) where previous == next {
                    violations.mutate { $0.append("worker \(worker) round \(round): \(statuses)") }
                }
            }
        }
        XCTAssertEqual(violations.value, [])
        XCTAssertFalse(reachability.isProbing)
        XCTAssertGreaterThan(prober.probeCount, 0)
        // A probe whose timer fired just before the last dispose may still be starting on the
        // probe queue (it is cancelled as soon as it has started): let that step finish first.
        probeQueue.sync {}
        let settled = prober.probeCount
        Thread.sleep(forTimeInterval: 0.02)
        XCTAssertEqual(prober.probeCount, settled, "no probe after every subscription was disposed")
    }
}
