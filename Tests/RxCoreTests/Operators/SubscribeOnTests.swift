import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class SubscribeOnTests: RxTestCase {
    func testSubscribesAndDisposesOnTheScheduler() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(150, 0), .next(210, 1), .next(1_100, 2)])
        let res = scheduler.start { xs.subscribe(on: scheduler) }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1_000)])
    }

    func testTheSourceIsSubscribedOnlyWhenTheSchedulerRuns() {
        let scheduler = TestScheduler(initialClock: 10, simulateProcessingDelay: false)
        let xs = scheduler.createColdObservable([.next(5, 1), .completed(8)])
        let observer = scheduler.createObserver(Int.self)
        let subscription = xs.subscribe(on: scheduler).subscribe(observer)
        XCTAssertEqual(xs.subscriptions, [])
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(15, 1), .completed(18)])
        XCTAssertEqual(xs.subscriptions, [Subscription(10, 18)])
        subscription.dispose()
    }

    func testDisposingBeforeTheSubscribeRanNeverSubscribes() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createColdObservable([.next(5, 1)])
        let before = Resources.total
        var subscription: Disposable? = xs.subscribe(on: scheduler).subscribe()
        subscription?.dispose()
        subscription = nil
        scheduler.start()
        XCTAssertEqual(xs.subscriptions, [])
        XCTAssertEqual(Resources.total, before)
    }

    func testRealTimeSubscribeAndDisposeRunOnTheSerialQueueAndOrderIsKept() {
        let queue = DispatchQueue(label: "subscribe-on-test")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let scheduler = SerialDispatchQueueScheduler(serialQueue: queue)
        let count = 10_000
        let subscribedOnQueue = LockedBox<Bool?>(nil)
        let disposedOnQueue = expectation(description: "disposed on the queue")
        let completed = expectation(description: "completed")
        let received = LockedBox<[Int]>([])
        let offQueue = LockedBox(0)
        let subscription = Observable<Int>.create { observer in
            subscribedOnQueue.mutate { $0 = DispatchQueue.getSpecific(key: key) == 7 }
            for value in 0..<count {
                observer.onNext(value)
            }
            observer.onCompleted()
            return Disposables.create {
                if DispatchQueue.getSpecific(key: key) == 7 { disposedOnQueue.fulfill() }
            }
        }
        .subscribe(on: scheduler)
        .subscribe(
            onNext: { value in
                if DispatchQueue.getSpecific(key: key) != 7 { offQueue.mutate { $0 += 1 } }
                received.mutate { $0.append(value) }
            },
            onCompleted: { completed.fulfill() }
        )
        wait(for: [completed, disposedOnQueue], timeout: 5)
        subscription.dispose()
        XCTAssertEqual(subscribedOnQueue.value, true)
        XCTAssertEqual(received.value, Array(0..<count))
        XCTAssertEqual(offQueue.value, 0, "a source that emits while subscribing emits on the scheduler")
    }
}
