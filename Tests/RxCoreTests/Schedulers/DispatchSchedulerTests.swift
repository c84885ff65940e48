import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class DispatchSchedulerTests: RxTestCase {
    func testSerialSchedulerRunsActionsInOrderOnItsQueue() {
        let queue = DispatchQueue(label: "serial-scheduler-test")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let scheduler = SerialDispatchQueueScheduler(serialQueue: queue)
        let done = expectation(description: "all ran")
        let order = LockedBox<[Int]>([])
        for index in 0..<50 {
            _ = scheduler.schedule(index) { value in
                XCTAssertEqual(DispatchQueue.getSpecific(key: key), 7)
                order.mutate { $0.append(value) }
                if value == 49 { done.fulfill() }
                return Disposables.create()
            }
        }
        wait(for: [done], timeout: 2)
        XCTAssertEqual(order.value, Array(0..<50))
    }

    func testRelativeActionFiresAfterItsDueTimeNotBefore() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "relative")
        let fired = expectation(description: "fired")
        let start = Date()
        let elapsed = LockedBox<TimeInterval>(0)
        _ = scheduler.scheduleRelative((), dueTime: .milliseconds(60)) { _ in
            elapsed.mutate { $0 = Date().timeIntervalSince(start) }
            fired.fulfill()
            return Disposables.create()
        }
        wait(for: [fired], timeout: 2)
        XCTAssertGreaterThanOrEqual(elapsed.value, 0.055, "a fractional delay must not be truncated")
    }

    func testDisposingARelativeActionBeforeItsTimeCancelsItAndReleasesIt() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "cancel")
        let ran = LockedBox(false)
        let subscription = scheduler.scheduleRelative((), dueTime: .milliseconds(40)) { _ in
            ran.mutate { $0 = true }
            return Disposables.create()
        }
        subscription.dispose()
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertFalse(ran.value)
    }

    func testDisposingAfterTheActionRanDisposesWhatItReturned() {
        let queue = DispatchQueue(label: "result")
        let scheduler = SerialDispatchQueueScheduler(serialQueue: queue)
        let ran = expectation(description: "ran")
        let inner = BooleanDisposable()
        let subscription = scheduler.schedule(()) { _ in
            ran.fulfill()
            return inner
        }
        wait(for: [ran], timeout: 2)
        // The action has returned, but its result is stored after `fulfill`: let the queue finish
        // the run. (A dispose while the action runs also disposes the result, on the queue.)
        queue.sync {}
        XCTAssertFalse(inner.isDisposed)
        subscription.dispose()
        XCTAssertTrue(inner.isDisposed)
    }

    func testPeriodicWorkThreadsStateAndStopsOnDispose() {
        let scheduler = ConcurrentDispatchQueueScheduler(qos: .default)
        let reachedThree = expectation(description: "three ticks")
        let seen = LockedBox<[Int]>([])
        let subscription = scheduler.schedulePeriodic(0, startAfter: .milliseconds(5), period: .milliseconds(10)) { count in
            seen.mutate { $0.append(count) }
            if count == 2 { reachedThree.fulfill() }
            return count + 1
        }
        wait(for: [reachedThree], timeout: 2)
        subscription.dispose()
        let countAtDispose = seen.value.count
        Thread.sleep(forTimeInterval: 0.06)
        XCTAssertEqual(Array(seen.value.prefix(3)), [0, 1, 2])
        XCTAssertLessThanOrEqual(seen.value.count, countAtDispose + 1, "at most a tick already running")
    }

    func testImmediateSchedulerRunsInline() {
        nonisolated(unsafe) var ran = false
        _ = ImmediateScheduler.instance.schedule(()) { _ in
            ran = true
            return Disposables.create()
        }
        XCTAssertTrue(ran)
    }

    func testRxTimeIntervalKeepsFractionsAndConvertsDispatchIntervals() {
        XCTAssertEqual(RxTimeInterval.seconds(0.5).timeInterval, 0.5)
        XCTAssertEqual(RxTimeInterval.milliseconds(250).timeInterval, 0.25)
        XCTAssertEqual(RxTimeInterval(.milliseconds(1500)).timeInterval, 1.5)
        XCTAssertEqual(RxTimeInterval.seconds(0.5).dispatchInterval, .nanoseconds(500_000_000))
        XCTAssertEqual(RxTimeInterval.never.dispatchInterval, .never)
    }
}

/// A tiny lock-protected box for test bookkeeping across threads.
final class LockedBox<Value>: @unchecked Sendable {
    // @unchecked Sendable: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    func mutate(_ body: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body(&stored)
    }
}
