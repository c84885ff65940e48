import Foundation
import RxCore
import RxTesting
import XCTest

final class CurrentThreadSchedulerTests: RxTestCase {
    private var scheduler: CurrentThreadScheduler { .instance }

    func testTheFirstScheduleRunsAtOnceAndReturnsWhatTheActionReturned() {
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
        let inner = BooleanDisposable()
        nonisolated(unsafe) var ran = false
        let disposable = CurrentThreadScheduler.instance.schedule(()) { _ in
            ran = true
            XCTAssertFalse(CurrentThreadScheduler.isScheduleRequired)
            return inner
        }
        XCTAssertTrue(ran)
        XCTAssertTrue(CurrentThreadScheduler.isScheduleRequired)
        disposable.dispose()
        XCTAssertTrue(inner.isDisposed)
    }

    func testNestedSchedulesQueueAndRunInOrderAfterTheRunningAction() {
        nonisolated(unsafe) var order: [String] = []
        _ = CurrentThreadScheduler.instance.schedule("A") { name in
            order.append("\(name) start")
            _ = CurrentThreadScheduler.instance.schedule("B") { name in
                order.append(name)
                _ = CurrentThreadScheduler.instance.schedule("D") { name in
                    order.append(name)
                    return Disposables.create()
                }
                return Disposables.create()
            }
            _ = CurrentThreadScheduler.instance.schedule("C") { name in
                order.append(name)
                return Disposables.create()
            }
            order.append("A end")
            return Disposables.create()
        }
        XCTAssertEqual(order, ["A start", "A end", "B", "C", "D"])
    }

    func testOneHundredThousandNestedSchedulesRunIterativelyWithoutGrowingTheStack() {
        nonisolated(unsafe) var count = 0
        nonisolated(unsafe) var depth = 0
        nonisolated(unsafe) var maximumDepth = 0
        @Sendable func step(_ remaining: Int) -> Disposable {
            depth += 1
            maximumDepth = max(maximumDepth, depth)
            count += 1
            if remaining > 0 {
                _ = CurrentThreadScheduler.instance.schedule(remaining - 1, action: step)
            }
            depth -= 1
            return Disposables.create()
        }
        _ = CurrentThreadScheduler.instance.schedule(99_999, action: step)
        XCTAssertEqual(count, 100_000)
        XCTAssertEqual(maximumDepth, 1, "recursion must have become iteration")
    }

    func testDisposingAQueuedActionBeforeItRunsCancelsIt() {
        nonisolated(unsafe) var ran: [String] = []
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            let cancelled = CurrentThreadScheduler.instance.schedule(()) { _ in
                ran.append("cancelled")
                return Disposables.create()
            }
            _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                ran.append("kept")
                return Disposables.create()
            }
            cancelled.dispose()
            return Disposables.create()
        }
        XCTAssertEqual(ran, ["kept"])
    }

    func testAnotherThreadHasItsOwnTrampoline() {
        let otherRanAtOnce = LockedBox(false)
        let done = DispatchSemaphore(value: 0)
        _ = CurrentThreadScheduler.instance.schedule(()) { _ in
            Thread.detachNewThread {
                let required = CurrentThreadScheduler.isScheduleRequired
                nonisolated(unsafe) var ran = false
                _ = CurrentThreadScheduler.instance.schedule(()) { _ in
                    ran = true
                    return Disposables.create()
                }
                otherRanAtOnce.mutate { $0 = required && ran }
                done.signal()
            }
            done.wait()
            return Disposables.create()
        }
        XCTAssertTrue(otherRanAtOnce.value)
    }
}
