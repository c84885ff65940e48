import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

/// Real-time hammering of the time operators: a source emitting on one thread, timers firing on a
/// concurrent scheduler, and several threads disposing at once. Asserts at most one terminal event
/// and, through RxTestCase, that everything is released.
final class TimeOperatorRaceTests: RxTestCase {
    private let scheduler = ConcurrentDispatchQueueScheduler(qos: .userInitiated)

    private func hammer(
        file: StaticString = #filePath,
        line: UInt = #line,
        _ apply: (Observable<Int>, any SchedulerType) -> Observable<Int>
    ) {
        for iteration in 0..<60 {
            let source = Observable<Int>.create { observer in
                let stop = BooleanDisposable()
                DispatchQueue.global().async {
                    for value in 0..<40 where !stop.isDisposed {
                        observer.onNext(value)
                    }
                    observer.onCompleted()
                }
                return stop
            }
            let terminals = LockedBox(0)
            let subscription = apply(source, scheduler).subscribe(
                onError: { _ in terminals.mutate { $0 += 1 } },
                onCompleted: { terminals.mutate { $0 += 1 } }
            )
            if iteration % 3 != 0 {
                Thread.sleep(forTimeInterval: Double(iteration % 4) * 0.000_2)
            }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in subscription.dispose() }
            XCTAssertLessThanOrEqual(terminals.value, 1, file: file, line: line)
        }
    }

    func testDelay() {
        hammer { $0.delay(.microseconds(50), scheduler: $1) }
    }

    func testDebounce() {
        hammer { $0.debounce(.microseconds(20), scheduler: $1) }
    }

    func testThrottle() {
        hammer { $0.throttle(.microseconds(20), scheduler: $1) }
    }

    func testTimeout() {
        hammer { $0.timeout(.microseconds(30), scheduler: $1) }
    }

    func testTimeoutWithOther() {
        hammer { $0.timeout(.microseconds(30), other: Observable.just(-1), scheduler: $1) }
    }

    func testObserveOn() {
        hammer { source, scheduler in source.observe(on: scheduler) }
    }

    func testSubscribeOn() {
        hammer { source, scheduler in source.subscribe(on: scheduler) }
    }

    func testDelaySubscription() {
        hammer { $0.delaySubscription(.microseconds(30), scheduler: $1) }
    }

    func testInterval() {
        hammer { _, scheduler in Observable<Int>.interval(.microseconds(100), scheduler: scheduler) }
    }
}
