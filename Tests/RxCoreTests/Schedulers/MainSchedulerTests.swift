import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

/// `MainScheduler` runs work inline only on the main thread while none of its work is queued or
/// running; nested work waits its turn, as in RxSwift.
final class MainSchedulerTests: RxTestCase {
    func testNestedWorkRunsInTheOrderItWasScheduled() {
        XCTAssertTrue(Thread.isMainThread)
        let done = expectation(description: "the innermost action ran")
        nonisolated(unsafe) var messages: [Int] = []
        nonisolated(unsafe) var executedImmediately = false
        _ = MainScheduler.instance.schedule(()) { _ in
            executedImmediately = true
            messages.append(1)
            _ = MainScheduler.instance.schedule(()) { _ in
                messages.append(3)
                _ = MainScheduler.instance.schedule(()) { _ in
                    messages.append(5)
                    done.fulfill()
                    return Disposables.create()
                }
                messages.append(4)
                return Disposables.create()
            }
            messages.append(2)
            return Disposables.create()
        }
        XCTAssertTrue(executedImmediately)
        wait(for: [done], timeout: 2)
        XCTAssertEqual(messages, [1, 2, 3, 4, 5])
    }

    func testDisposingNestedWorkBeforeItRunsCancelsIt() {
        let done = expectation(description: "the later action ran")
        nonisolated(unsafe) var messages: [Int] = []
        _ = MainScheduler.instance.schedule(()) { _ in
            messages.append(1)
            let nested = MainScheduler.instance.schedule(()) { _ in
                messages.append(3)
                return Disposables.create()
            }
            _ = MainScheduler.instance.schedule(()) { _ in
                messages.append(4)
                done.fulfill()
                return Disposables.create()
            }
            messages.append(2)
            nested.dispose()
            return Disposables.create()
        }
        wait(for: [done], timeout: 2)
        XCTAssertEqual(messages, [1, 2, 4])
    }

    func testWorkScheduledFromAnotherThreadRunsOnTheMainThread() {
        let done = expectation(description: "ran on main")
        let ranOnMain = LockedBox(false)
        DispatchQueue.global().async {
            _ = MainScheduler.instance.schedule(()) { _ in
                ranOnMain.mutate { $0 = Thread.isMainThread }
                done.fulfill()
                return Disposables.create()
            }
        }
        wait(for: [done], timeout: 2)
        XCTAssertTrue(ranOnMain.value)
    }

    func testOnceTheQueuedWorkFinishedTheNextScheduleRunsInlineAgain() {
        let done = expectation(description: "queued work ran")
        _ = MainScheduler.instance.schedule(()) { _ in
            _ = MainScheduler.instance.schedule(()) { _ in
                done.fulfill()
                return Disposables.create()
            }
            return Disposables.create()
        }
        wait(for: [done], timeout: 2)
        nonisolated(unsafe) var ranInline = false
        // The queued action's bookkeeping finishes right after it ran; let the main queue settle.
        RunLoop.current.run(until: Date().addingTimeInterval(0.02))
        _ = MainScheduler.instance.schedule(()) { _ in
            ranInline = true
            return Disposables.create()
        }
        XCTAssertTrue(ranInline)
    }
}
