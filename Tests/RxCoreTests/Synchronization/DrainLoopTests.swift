import Dispatch
@_spi(RxNetworkKitInternals) import RxCore
import Synchronization
import XCTest

/// The delivery kernel every multi-thread sink and every resubscribe trampoline runs on.
final class DrainLoopTests: XCTestCase {
    /// Work items made ready by any thread, and what the loop's steps did with them.
    private final class Worker: Sendable {
        let loop = DrainLoop()
        let ready = LockedState<[Int]>.make([])
        let done = LockedState<[Int]>.make([])
        let stepsRunning = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)

        func makeReady(_ item: Int) {
            ready.withLock { $0.append(item) }
            if loop.signal() {
                loop.run(missed: 1) { step() }
            }
        }

        func step() -> DrainStep {
            if stepsRunning.add(1, ordering: .acquiringAndReleasing).newValue != 1 {
                overlaps.add(1, ordering: .relaxed)
            }
            defer { stepsRunning.subtract(1, ordering: .acquiringAndReleasing) }
            guard let item = ready.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return .idle }
            done.withLock { $0.append(item) }
            return .delivered
        }
    }

    func testWorkMadeReadyOnManyThreadsIsDoneOnceEachAndNeverConcurrently() {
        let worker = Worker()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<2_000 {
                worker.makeReady(thread * 10_000 + index)
            }
        }
        let done = worker.done.withLock { $0 }
        XCTAssertEqual(done.count, 16_000)
        XCTAssertEqual(Set(done).count, 16_000, "each item once")
        XCTAssertEqual(worker.overlaps.load(ordering: .relaxed), 0, "one step at a time")
        XCTAssertTrue(worker.ready.withLock { $0.isEmpty }, "nothing stranded")
        for thread in 0..<8 {
            let mine = done.filter { $0 / 10_000 == thread }
            XCTAssertEqual(mine, mine.sorted(), "one thread's items keep their order")
        }
    }

    func testWorkMadeReadyInsideAStepIsDoneAfterItReturnsAtTheSameDepth() {
        let loop = DrainLoop()
        nonisolated(unsafe) var log: [String] = []
        nonisolated(unsafe) var pending = [0]
        nonisolated(unsafe) var depth = 0
        nonisolated(unsafe) var deepest = 0
        func makeReady(_ item: Int) {
            pending.append(item)
            if loop.signal() {
                loop.run(missed: 1) {
                    guard !pending.isEmpty else { return .idle }
                    let item = pending.removeFirst()
                    depth += 1
                    deepest = max(deepest, depth)
                    log.append("start \(item)")
                    if item < 10_000 { makeReady(item + 1) }
                    log.append("end \(item)")
                    depth -= 1
                    return .delivered
                }
            }
        }
        pending = []
        makeReady(0)
        XCTAssertEqual(deepest, 1, "a step never runs inside another")
        XCTAssertEqual(Array(log.prefix(4)), ["start 0", "end 0", "start 1", "end 1"])
        XCTAssertEqual(log.count, 2 * 10_001)
    }

    func testNothingRunsAfterAStepFinishesTheLoop() {
        let loop = DrainLoop()
        nonisolated(unsafe) var steps = 0
        XCTAssertTrue(loop.signal())
        loop.run(missed: 1) {
            steps += 1
            return .finished
        }
        XCTAssertFalse(loop.signal(), "the right is never given back")
        XCTAssertFalse(loop.tryClaim())
        XCTAssertEqual(steps, 1)
    }

    func testTheFastPathClaimsOnlyWhenNoOneDeliversAndReportsWhatCameMeanwhile() {
        let loop = DrainLoop()
        XCTAssertTrue(loop.tryClaim())
        XCTAssertFalse(loop.tryClaim(), "held")
        XCTAssertFalse(loop.signal(), "recorded for the holder")
        XCTAssertEqual(loop.release(), 1, "one signal to drain")
        nonisolated(unsafe) var steps = 0
        loop.run(missed: 1) {
            steps += 1
            return .idle
        }
        XCTAssertEqual(steps, 1)
        XCTAssertTrue(loop.tryClaim(), "free again")
        XCTAssertEqual(loop.release(), 0)
    }
}
