import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class ObserveOnTests: RxTestCase {
    func testDeliversOnTheSchedulerAtTheTickTheEventsArrive() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(150, 0), .next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.observe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testEachEventIsAnActionOfItsOwnSoEventsOfOneTickLeaveOnSuccessiveTicksAsInRxSwift() {
        let scheduler = TestScheduler()
        let xs = scheduler.createHotObservable([.next(210, 1), .next(210, 2), .completed(210)])
        let res = scheduler.start { xs.observe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(211, 1), .next(212, 2), .completed(213)])
    }

    func testAnImmediateSchedulerDeliversAChainThatFeedsItselfInConstantStackDepth() {
        let subject = PublishSubject<Int>()
        let delivered = LockedBox(0)
        let subscription = subject.observe(on: ImmediateScheduler.instance).subscribe(onNext: { value in
            delivered.mutate { $0 += 1 }
            if value < 100_000 {
                subject.onNext(value + 1)
            }
        })
        subject.onNext(1)
        XCTAssertEqual(delivered.value, 100_000)
        subscription.dispose()
    }

    func testEventsWaitForTheSchedulerAndKeepTheirOrderErrorLast() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let observer = scheduler.createObserver(Int.self)
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        .observe(on: scheduler)
        .subscribe(observer)
        XCTAssertEqual(observer.events, [], "nothing is delivered until the scheduler runs")
        scheduler.advanceTo(5)
        XCTAssertEqual(observer.events, [.next(0, 1), .next(0, 2), .error(0, TestError.boom)])
        subscription.dispose()
    }

    func testDisposingDropsUndeliveredEventsAndCancelsTheDrain() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 0, on: scheduler) {
            Observable<Int>.create { observer in
                observer.onNext(1)
                return Disposables.create()
            }
            .observe(on: scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testRealTimeEventsArriveOnTheSerialQueueInOrder() {
        let queue = DispatchQueue(label: "observe-on-test")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 42)
        let scheduler = SerialDispatchQueueScheduler(serialQueue: queue)
        let count = 10_000
        let done = expectation(description: "completed")
        let received = LockedBox<[Int]>([])
        let offQueue = LockedBox(0)
        let subscription = Observable<Int>.create { observer in
            DispatchQueue.global().async {
                for value in 0..<count {
                    observer.onNext(value)
                }
                observer.onCompleted()
            }
            return Disposables.create()
        }
        .observe(on: scheduler)
        .subscribe(
            onNext: { value in
                if DispatchQueue.getSpecific(key: key) != 42 { offQueue.mutate { $0 += 1 } }
                received.mutate { $0.append(value) }
            },
            onCompleted: {
                if DispatchQueue.getSpecific(key: key) != 42 { offQueue.mutate { $0 += 1 } }
                done.fulfill()
            }
        )
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(received.value, Array(0..<count))
        XCTAssertEqual(offQueue.value, 0, "every event must arrive on the scheduler's queue")
    }

    func testAConcurrentSchedulerStillDeliversOneEventAtATimeInOrder() {
        let scheduler = ConcurrentDispatchQueueScheduler(qos: .userInitiated)
        let count = 10_000
        let done = expectation(description: "completed")
        let received = LockedBox<[Int]>([])
        let overlapping = LockedBox(0)
        let inside = LockedBox(false)
        let subscription = Observable<Int>.create { observer in
            DispatchQueue.global().async {
                for value in 0..<count {
                    observer.onNext(value)
                }
                observer.onCompleted()
            }
            return Disposables.create()
        }
        .observe(on: scheduler)
        .subscribe(
            onNext: { value in
                inside.mutate { busy in
                    if busy { overlapping.mutate { $0 += 1 } }
                    busy = true
                }
                received.mutate { $0.append(value) }
                inside.mutate { $0 = false }
            },
            onCompleted: { done.fulfill() }
        )
        wait(for: [done], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(received.value, Array(0..<count))
        XCTAssertEqual(overlapping.value, 0)
    }
}
