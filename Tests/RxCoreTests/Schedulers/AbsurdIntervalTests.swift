import Foundation
@testable import RxCore
import RxTesting
import XCTest

/// NaN, negative, infinite and huge intervals reach schedulers and delays without trapping.
final class AbsurdIntervalTests: RxTestCase {
    private let absurd: [Double] = [.nan, -1, .infinity, -.infinity, 1e300, .greatestFiniteMagnitude, 9.3e15]

    func testDispatchSchedulersTakeAnyDueTime() {
        let serial = SerialDispatchQueueScheduler(internalSerialQueueName: "absurd")
        let concurrent = ConcurrentDispatchQueueScheduler(qos: .utility)
        for interval in absurd {
            serial.scheduleRelative((), dueTime: .seconds(interval)) { _ in Disposables.create() }.dispose()
            concurrent.scheduleRelative((), dueTime: .seconds(interval)) { _ in Disposables.create() }.dispose()
            serial.schedulePeriodic((), startAfter: .seconds(interval), period: .seconds(max(1, interval.isNaN ? 1 : interval))) { $0 }.dispose()
            _ = RxTimeInterval.seconds(interval).dispatchInterval
        }
    }

    func testDelayOptionsStayFiniteOrInfiniteNeverNaN() {
        for interval in absurd {
            for options in [DelayOptions.constant(time: interval), .exponential(initial: interval, multiplier: interval, maxDelay: interval),
                            .custom { _ in interval }] {
                for attempt in [Int.min, -1, 0, 1, 2, 1_000, Int.max] {
                    let delay = options.make(attempt)
                    XCTAssertFalse(delay.isNaN, "\(options) \(attempt)")
                    XCTAssertGreaterThanOrEqual(delay, 0)
                    _ = options.make(attempt, jitter: .full, random: .seeded(1))
                }
            }
        }
        XCTAssertEqual(DelayOptions.exponential(initial: 1, multiplier: 2, maxDelay: 30).make(Int.max), 30)
    }

    func testTimeOperatorsTakeAnyInterval() {
        for interval in absurd {
            Observable<Int>.just(1).delay(.seconds(interval), scheduler: ConcurrentDispatchQueueScheduler.background).subscribe().dispose()
            Observable<Int>.never().timeout(.seconds(interval), scheduler: ConcurrentDispatchQueueScheduler.background).subscribe().dispose()
            Observable<Int>.timer(.seconds(interval), scheduler: ConcurrentDispatchQueueScheduler.background).subscribe().dispose()
        }
    }

    // MARK: - A due time of minus infinity is in the past, not never

    func testMinusInfinityIsADueTimeInThePastNotNever() {
        XCTAssertEqual(RxTimeInterval.seconds(-.infinity).dispatchInterval, .nanoseconds(0))
        XCTAssertEqual(RxTimeInterval.seconds(.infinity).dispatchInterval, .never)
    }

    func testARelativeActionDueAtMinusInfinityRunsAtOnceOnADispatchScheduler() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "minus-infinity")
        let fired = expectation(description: "a past due time runs at once, as on TestScheduler")
        let subscription = Observable<Int>.timer(.seconds(-.infinity), scheduler: scheduler)
            .subscribe(onNext: { _ in fired.fulfill() })
        wait(for: [fired], timeout: 1)
        subscription.dispose()
    }

    func testAPeriodicTimerStartingAtMinusInfinityTicksOnADispatchScheduler() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "minus-infinity-periodic")
        let fired = expectation(description: "ticks")
        let subscription = Observable<Int>.timer(.seconds(-.infinity), period: .milliseconds(10), scheduler: scheduler)
            .take(2)
            .subscribe(onCompleted: { fired.fulfill() })
        wait(for: [fired], timeout: 1)
        subscription.dispose()
    }
}
