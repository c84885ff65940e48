import Dispatch
import RxCore
import RxTesting
import XCTest

final class DelayTests: RxTestCase {
    func testShiftsElementsAndCompletionAndReleasesTheSourceWhenItEnds() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([
            .next(150, 0), .next(210, 1), .next(250, 2), .completed(300),
        ])
        let res = scheduler.start { xs.delay(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(310, 1), .next(350, 2), .completed(400)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testElementsOfTheSameTickKeepTheirOrder() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(210, 2), .next(210, 3), .completed(210)])
        let res = scheduler.start { xs.delay(.seconds(5), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(215, 1), .next(215, 2), .next(215, 3), .completed(215)])
    }

    func testOneTimerAtATimeSoEventsOfOneTickLeaveOnSuccessiveTicksAsInRxSwift() {
        // RxSwift keeps one timer: after an event goes out, the next one's timer is scheduled for
        // what is left of its delay; nothing is left here, and work for "now" runs a tick later.
        let scheduler = TestScheduler()
        let xs = scheduler.createHotObservable([.next(210, 1), .next(210, 2), .completed(210), .next(250, 9)])
        let res = scheduler.start { xs.delay(.seconds(5), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(215, 1), .next(216, 2), .completed(217)])
    }

    func testAnEventWhoseDelayIsPartlySpentWaitsOnlyForTheRest() {
        let scheduler = TestScheduler()
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2), .completed(300)])
        let res = scheduler.start { xs.delay(.seconds(50), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(260, 1), .next(280, 2), .completed(350)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testAnErrorIsPassedOnAtOnceDroppingWaitingElements() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([
            .next(210, 1), .next(250, 2), .next(290, 3), .error(330, TestError.boom),
        ])
        let res = scheduler.start { xs.delay(.seconds(100), scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(310, 1), .error(330, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 330)])
        XCTAssertTrue(scheduler.isIdle, "the timers of the dropped elements were cancelled")
    }

    func testFractionalDelaysAreNotTruncated() {
        let tenths = TestScheduler(resolution: 0.1, simulateProcessingDelay: false)
        let xs = tenths.createHotObservable([.next(210, 1), .completed(220)])
        XCTAssertEqual(
            tenths.start { xs.delay(.seconds(0.5), scheduler: tenths) }.events,
            [.next(215, 1), .completed(225)]
        )
        let millis = TestScheduler(resolution: 0.001, simulateProcessingDelay: false)
        let ys = millis.createHotObservable([.next(210, 1), .completed(220)])
        XCTAssertEqual(
            millis.start { ys.delay(.seconds(0.5), scheduler: millis) }.events,
            [.next(710, 1), .completed(720)]
        )
        let seconds = TestScheduler(simulateProcessingDelay: false)
        let zs = seconds.createHotObservable([.next(210, 1)])
        XCTAssertEqual(
            seconds.start { zs.delay(.seconds(0.5), scheduler: seconds) }.events,
            [.next(211, 1)],
            "half a second at one-second ticks is one tick, never zero"
        )
    }

    func testDisposingWhileElementsWaitCancelsTheirTimers() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertDisposingWhileWaiting(at: 15, on: scheduler) {
            Observable<Int>.create { observer in
                observer.onNext(1)
                observer.onNext(2)
                return Disposables.create()
            }
            .delay(.seconds(50), scheduler: scheduler)
        }
        XCTAssertTrue(scheduler.isIdle)
    }

    func testOnAConcurrentSchedulerDeliveryStaysSerializedAndOrdered() {
        let scheduler = ConcurrentDispatchQueueScheduler(qos: .userInitiated)
        let done = expectation(description: "completed")
        let count = 2_000
        let received = LockedBox<[Int]>([])
        let overlapping = LockedBox(0)
        let inside = LockedBox(false)
        let subscription = Observable<Int>.create { observer in
            for value in 0..<count {
                observer.onNext(value)
            }
            observer.onCompleted()
            return Disposables.create()
        }
        .delay(.milliseconds(2), scheduler: scheduler)
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
