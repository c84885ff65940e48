import Dispatch
import RxCore
import RxTesting
import XCTest

/// `ScheduledDisposable` disposes the disposable it wraps in an action on its scheduler, once.
final class ScheduledDisposableTests: RxTestCase {
    func testDisposalRunsAsAnActionOnTheScheduler() {
        let scheduler = TestScheduler(initialClock: 0)
        let log = DisposeLog()
        let scheduled = ScheduledDisposable(
            scheduler: scheduler,
            disposable: Disposables.create { log.record("disposed at \(scheduler.clock)") }
        )
        scheduler.scheduleAt(100) {
            scheduled.dispose()
            XCTAssertEqual(log.count, 0, "dispose() disposed at once instead of scheduling")
            XCTAssertFalse(scheduled.isDisposed, "not disposed until the action runs")
        }
        scheduler.start()
        XCTAssertEqual(log.names, ["disposed at 101"], "the scheduled action runs one tick later")
        XCTAssertTrue(scheduled.isDisposed)
    }

    func testRepeatedAndConcurrentDisposeDisposesTheWrappedDisposableOnce() {
        let queue = DispatchQueue(label: "ScheduledDisposableTests.serial")
        let scheduler = SerialDispatchQueueScheduler(serialQueue: queue)
        let log = DisposeLog()
        let scheduled = ScheduledDisposable(scheduler: scheduler, disposable: ValueDisposable("wrapped", log: log))
        DispatchQueue.concurrentPerform(iterations: 8) { _ in scheduled.dispose() }
        queue.sync {}
        XCTAssertEqual(log.names, ["wrapped"])
        XCTAssertTrue(scheduled.isDisposed)
    }

    func testTheWrappedDisposableIsDisposedOnTheSchedulersQueue() {
        let key = DispatchSpecificKey<String>()
        let queue = DispatchQueue(label: "ScheduledDisposableTests.target")
        queue.setSpecific(key: key, value: "target")
        let done = expectation(description: "disposed")
        let log = DisposeLog()
        let scheduled = ScheduledDisposable(
            scheduler: SerialDispatchQueueScheduler(serialQueue: queue),
            disposable: Disposables.create {
                log.record(DispatchQueue.getSpecific(key: key) ?? "another queue")
                done.fulfill()
            }
        )
        XCTAssertEqual(scheduled.scheduler is SerialDispatchQueueScheduler, true)
        scheduled.dispose()
        wait(for: [done], timeout: 5)
        XCTAssertEqual(log.names, ["target"], "the disposal ran off the scheduler's queue")
    }

    func testAnImmediateSchedulerDisposesBeforeDisposeReturns() {
        let log = DisposeLog()
        let scheduled = ScheduledDisposable(scheduler: ImmediateScheduler.instance, disposable: ValueDisposable("wrapped", log: log))
        scheduled.dispose()
        XCTAssertEqual(log.names, ["wrapped"])
        XCTAssertTrue(scheduled.isDisposed)
    }
}
