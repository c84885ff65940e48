import Foundation
import RxCore
import RxTesting
import XCTest

/// Every rule of `retry(_:delay:scheduler:didBecomeReachable:shouldRetry:)`, in virtual time.
/// Resolution 0.1 s per tick, so a 0.5 s delay is 5 ticks: fractions must survive.
final class RetryWithDelayTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, resolution: 0.1, simulateProcessingDelay: false)

    func testWaitsTheFractionalDelayBetweenAttemptsAndCountsTheFirstAttempt() {
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let observer = scheduler.start {
            source.asObservable().retry(3, delay: .constant(time: 0.5), scheduler: self.scheduler)
        }
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210), Subscription(215, 225), Subscription(230, 240)])
        XCTAssertEqual(observer.events, [.error(240, TestError.boom)])
    }

    func testExponentialDelaysGrowPerRetry() {
        let source = scheduler.createColdObservable([.error(1, TestError.boom)] as [Recorded<Event<Int>>])
        _ = scheduler.start {
            source.asObservable().retry(
                4, delay: .exponential(initial: 0.5, multiplier: 2, maxDelay: 30), scheduler: self.scheduler
            )
        }
        // waits of 0.5, 1 and 2 s: 5, 10, 20 ticks after each failure.
        XCTAssertEqual(source.subscriptions.map(\.subscribe), [200, 206, 217, 238])
    }

    func testElementsFromEveryAttemptPassAndASuccessfulAttemptCompletes() {
        nonisolated(unsafe) var attempts = 0
        let observer = scheduler.start {
            Observable<Int>.create { observer in
                attempts += 1
                observer.onNext(attempts * 10)
                if attempts < 3 {
                    observer.onError(TestError.boom)
                } else {
                    observer.onCompleted()
                }
                return Disposables.create()
            }
            .retry(5, delay: .constant(time: 1), scheduler: self.scheduler)
        }
        XCTAssertEqual(observer.events, [.next(200, 10), .next(210, 20), .next(220, 30), .completed(220)])
        XCTAssertEqual(attempts, 3)
    }

    func testTheLastErrorReachesTheSubscriberUnchanged() {
        nonisolated(unsafe) var attempts = 0
        let observer = scheduler.start {
            Observable<Int>.create { observer in
                attempts += 1
                observer.onError(attempts == 2 ? TestError.other : TestError.boom)
                return Disposables.create()
            }
            .retry(2, delay: .constant(time: 0.3), scheduler: self.scheduler)
        }
        XCTAssertEqual(observer.events, [.error(203, TestError.other)])
    }

    func testAMaximumOfOneAttemptNeverRetries() {
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let observer = scheduler.start {
            source.asObservable().retry(1, delay: .immediate, scheduler: self.scheduler)
        }
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(observer.events, [.error(210, TestError.boom)])
    }

    func testAnErrorThatShouldNotBeRetriedPassesAtOnce() {
        let source = scheduler.createColdObservable([.error(10, TestError.other)] as [Recorded<Event<Int>>])
        let observer = scheduler.start {
            source.asObservable().retry(5, delay: .constant(time: 1), scheduler: self.scheduler) {
                ($0 as? TestError) == .boom
            }
        }
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(observer.events, [.error(210, TestError.other)])
    }

    func testReachabilityBeforeTheDelayRestartsOnceAndTheTimerIsThenIgnored() {
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let reachable = scheduler.createHotObservable([.next(215, ())] as [Recorded<Event<Void>>])
        _ = scheduler.start(disposed: 2000) {
            source.asObservable().retry(
                2, delay: .constant(time: 30), scheduler: self.scheduler,
                didBecomeReachable: reachable.asObservable()
            )
        }
        // Restarted at 215 by reachability, not at 510 by the 30 s timer; the second attempt fails
        // at 225 and, being the last, ends the sequence.
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210), Subscription(215, 225)])
        // The signal is listened to only while waiting.
        XCTAssertEqual(reachable.subscriptions, [Subscription(210, 215)])
    }

    func testTheTimerBeforeReachabilityRestartsOnceAndTheSignalIsThenIgnored() {
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let reachable = scheduler.createHotObservable([.next(216, ()), .next(217, ())] as [Recorded<Event<Void>>])
        _ = scheduler.start {
            source.asObservable().retry(
                3, delay: .constant(time: 0.5), scheduler: self.scheduler,
                didBecomeReachable: reachable.asObservable()
            )
        }
        XCTAssertEqual(source.subscriptions.map(\.subscribe), [200, 215, 230])
        XCTAssertEqual(reachable.subscriptions, [Subscription(210, 215), Subscription(225, 230)])
    }

    func testTimerAndReachabilityAtTheSameTickStartExactlyOneAttempt() {
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let reachable = scheduler.createHotObservable([.next(215, ())] as [Recorded<Event<Void>>])
        _ = scheduler.start {
            source.asObservable().retry(
                3, delay: .constant(time: 0.5), scheduler: self.scheduler,
                didBecomeReachable: reachable.asObservable()
            )
        }
        XCTAssertEqual(source.subscriptions.map(\.subscribe), [200, 215, 230])
    }

    func testAReachabilitySignalWhileAnAttemptRunsRestartsNothing() {
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let reachable = scheduler.createHotObservable([.next(205, ()), .next(220, ())] as [Recorded<Event<Void>>])
        _ = scheduler.start {
            source.asObservable().retry(
                2, delay: .constant(time: 5), scheduler: self.scheduler,
                didBecomeReachable: reachable.asObservable()
            )
        }
        // 205 falls inside the first attempt: ignored. 220 falls in the wait: restarts.
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210), Subscription(220, 230)])
    }

    func testDisposingWhileWaitingCancelsTheTimerAndTheReachabilitySubscription() {
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let reachable = scheduler.createHotObservable([.next(300, ())] as [Recorded<Event<Void>>])
        let observer = scheduler.start(disposed: 212) {
            source.asObservable().retry(
                3, delay: .constant(time: 0.5), scheduler: self.scheduler,
                didBecomeReachable: reachable.asObservable()
            )
        }
        XCTAssertEqual(source.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(reachable.subscriptions, [Subscription(210, 212)])
        XCTAssertEqual(observer.events, [])
        XCTAssertEqual(scheduler.clock, 300, "only the hot observable's own event was left to run")
    }

    func testAnInfiniteDelayWaitsForReachabilityAlone() {
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let reachable = scheduler.createHotObservable([.next(900, ())] as [Recorded<Event<Void>>])
        _ = scheduler.start {
            source.asObservable().retry(
                2, delay: .constant(time: .infinity), scheduler: self.scheduler,
                didBecomeReachable: reachable.asObservable()
            )
        }
        XCTAssertEqual(source.subscriptions.map(\.subscribe), [200, 900])
    }

    func testImmediateRetriesOfASynchronousFailureDoNotGrowTheStack() {
        nonisolated(unsafe) var attempts = 0
        nonisolated(unsafe) var failure: Error?
        let subscription = Observable<Int>.create { observer in
            attempts += 1
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        .retry(100_000, delay: .immediate, scheduler: scheduler)
        .subscribe(onError: { failure = $0 })
        subscription.dispose()
        XCTAssertEqual(attempts, 100_000)
        XCTAssertEqual(failure as? TestError, .boom)
    }

    func testSingleRetrySucceedsAfterAFailure() {
        nonisolated(unsafe) var attempts = 0
        nonisolated(unsafe) var value: Int?
        let subscription = Single<Int>.create { single in
            attempts += 1
            single(attempts == 1 ? .failure(TestError.boom) : .success(42))
            return Disposables.create()
        }
        .retry(3, delay: .constant(time: 2), scheduler: scheduler)
        .subscribe(onSuccess: { value = $0 })
        scheduler.advance(by: 19)
        XCTAssertNil(value, "2 s have not passed yet")
        scheduler.advance(by: 1)
        XCTAssertEqual(value, 42)
        XCTAssertEqual(attempts, 2)
        subscription.dispose()
    }

    func testJitteredDelaysComeFromTheSeededSource() {
        let source = scheduler.createColdObservable([.error(0, TestError.boom)] as [Recorded<Event<Int>>])
        _ = scheduler.start {
            source.asObservable().retry(
                3, delay: DelayOptions.constant(time: 2).jittered(.full, random: .sequence([0.25, 0.75])),
                scheduler: self.scheduler
            )
        }
        // 0.25 * 2 s = 5 ticks, then 0.75 * 2 s = 15 ticks.
        XCTAssertEqual(source.subscriptions.map(\.subscribe), [200, 205, 220])
    }
}

final class RetryWithDelayReentrancyTests: RxTestCase {
    func testASignalFiringTwiceWhileBeingSubscribedRestartsOnceAndIsReleased() {
        let scheduler = TestScheduler(initialClock: 0, resolution: 0.1, simulateProcessingDelay: false)
        nonisolated(unsafe) var signalSubscriptions = 0
        nonisolated(unsafe) var signalDisposals = 0
        // A reachability signal that is already "back" twice by the time anyone listens.
        let burst = Observable<Void>.create { observer in
            signalSubscriptions += 1
            observer.onNext(())
            observer.onNext(())
            return Disposables.create { signalDisposals += 1 }
        }
        let source = scheduler.createColdObservable([.error(10, TestError.boom)] as [Recorded<Event<Int>>])
        let observer = scheduler.start {
            source.asObservable().retry(3, delay: .constant(time: 30), scheduler: scheduler, didBecomeReachable: burst)
        }
        XCTAssertEqual(
            source.subscriptions, [Subscription(200, 210), Subscription(210, 220), Subscription(220, 230)],
            "one restart per failure, not one per signal"
        )
        XCTAssertEqual(observer.events, [.error(230, TestError.boom)])
        XCTAssertEqual(signalSubscriptions, 2)
        XCTAssertEqual(signalDisposals, 2, "a wait that ended is not left listening")
    }
}

/// `onRetry` of the retry operator, in virtual time (0.1 s per tick).
final class RetryNotificationTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, resolution: 0.1, simulateProcessingDelay: false)

    func testOnRetryTellsTheAttemptTheErrorTheDelayAndWhatEndedTheWait() {
        let reachable = PublishSubject<Void>()
        let source = scheduler.createColdObservable([.error(1, TestError.boom)] as [Recorded<Event<Int>>])
        let told = NotificationLog()
        _ = scheduler.scheduleAt(215) { reachable.onNext(()) }
        _ = scheduler.start {
            source.asObservable().retry(
                4, delay: .constant(time: 2), scheduler: self.scheduler, didBecomeReachable: reachable.asObservable(),
                onRetry: { told.append($0) }
            )
        }
        // Fails at 201; reachability ends the wait at 215 (before 221); fails at 216; timer at 236.
        XCTAssertEqual(source.subscriptions.map(\.subscribe), [200, 215, 236, 257])
        XCTAssertEqual(told.entries.map(\.attempt), [2, 3, 4])
        XCTAssertEqual(told.entries.map(\.trigger), [.reachability, .timer, .timer])
        XCTAssertEqual(told.entries.map(\.delay), [2, 2, 2])
        XCTAssertEqual(told.entries.map { ($0.waited * 10).rounded() }, [14, 20, 20])
        XCTAssertTrue(told.entries.allSatisfy { $0.error as? TestError == .boom })
    }

    func testOnRetryIsToldOfImmediateRetries() {
        let source = scheduler.createColdObservable([.error(1, TestError.boom)] as [Recorded<Event<Int>>])
        let told = NotificationLog()
        _ = scheduler.start {
            source.asObservable().retry(3, delay: .immediate, scheduler: self.scheduler, onRetry: { told.append($0) })
        }
        XCTAssertEqual(told.entries.map(\.trigger), [.immediate, .immediate])
    }
}

/// Retry notifications collected from any thread.
// @unchecked Sendable: `stored` is only touched under `lock`.
private final class NotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [RetryNotification<Error>] = []

    func append(_ notification: RetryNotification<Error>) {
        lock.withLock { stored.append(notification) }
    }

    var entries: [RetryNotification<Error>] {
        lock.withLock { stored }
    }
}
