import RxCore
import RxTesting
import XCTest

/// Value-type disposables handed to the kernel (by an `Observable.create` handler or a scheduler)
/// are boxed into the class-constrained upstream slot: they must still be disposed exactly once.
final class ClassDisposableTests: RxTestCase {
    // MARK: - Observable.create

    func testValueDisposableFromCreateIsDisposedOnceOnDispose() {
        let log = DisposeLog()
        let subscription = Observable<Int>.create { _ in ValueDisposable(log: log) }
            .map { $0 + 1 }
            .subscribe()
        XCTAssertEqual(log.count, 0, "disposed before the subscription was")
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(log.names, ["value"])
    }

    func testValueDisposableFromCreateIsDisposedOnceWhenTheSequenceCompletesBeforeReturningIt() {
        let log = DisposeLog()
        nonisolated(unsafe) var received: [Int] = []
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onCompleted()
            return ValueDisposable(log: log)
        }
        .subscribe(onNext: { received.append($0) })
        XCTAssertEqual(log.names, ["value"], "the handler's disposable outlived the completed sequence")
        subscription.dispose()
        XCTAssertEqual(log.names, ["value"])
        XCTAssertEqual(received, [1])
    }

    func testValueDisposableFromCreateIsDisposedOnceWhenTheSequenceFailsLater() {
        let log = DisposeLog()
        nonisolated(unsafe) var captured: AnyObserver<Int>?
        nonisolated(unsafe) var errors = 0
        let subscription = Observable<Int>.create { observer in
            captured = observer
            return ValueDisposable(log: log)
        }
        .subscribe(onError: { _ in errors += 1 })
        XCTAssertEqual(log.count, 0)
        captured?.onError(TestError.boom)
        captured = nil
        subscription.dispose()
        XCTAssertEqual(log.names, ["value"])
        XCTAssertEqual(errors, 1)
    }

    func testValueDisposableFromSingleCreateIsDisposedOnce() {
        let log = DisposeLog()
        nonisolated(unsafe) var successes = 0
        let subscription = Single<Int>.create { _ in ValueDisposable(log: log) }
            .subscribe(onSuccess: { _ in successes += 1 })
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(log.names, ["value"])
        XCTAssertEqual(successes, 0)
    }

    func testClassDisposableFromCreateIsDisposedOnce() {
        let log = DisposeLog()
        let subscription = Observable<Int>.create { _ in Disposables.create { log.record("class") } }
            .subscribe()
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(log.names, ["class"])
    }

    // MARK: - Schedulers returning value-type disposables

    func testTimerOnASchedulerReturningValueDisposablesCancelsOnceOnDispose() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let log = DisposeLog()
        nonisolated(unsafe) var received: [Int] = []
        let subscription = Observable<Int>.timer(.seconds(10), scheduler: ValueDisposableScheduler(base: scheduler, log: log))
            .subscribe(onNext: { received.append($0) })
        scheduler.advance(by: 5)
        subscription.dispose()
        XCTAssertEqual(log.names, ["scheduled"])
        scheduler.advance(by: 10)
        subscription.dispose()
        XCTAssertEqual(received, [], "the timer fired after dispose: the boxed disposable did not reach it")
        XCTAssertEqual(log.names, ["scheduled"])
    }

    func testPeriodicTimerOnASchedulerReturningValueDisposablesStopsOnDispose() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let log = DisposeLog()
        nonisolated(unsafe) var received: [Int] = []
        let subscription = Observable<Int>
            .timer(.seconds(1), period: .seconds(1), scheduler: ValueDisposableScheduler(base: scheduler, log: log))
            .subscribe(onNext: { received.append($0) })
        scheduler.advance(by: 3)
        subscription.dispose()
        scheduler.advance(by: 5)
        XCTAssertEqual(received, [0, 1, 2])
        XCTAssertEqual(log.names, ["scheduled"])
    }

    func testDelaySubscriptionOnASchedulerReturningValueDisposablesCancelsOnceOnDispose() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        let log = DisposeLog()
        nonisolated(unsafe) var subscribed = 0
        let source = Observable<Int>.create { _ in
            subscribed += 1
            return Disposables.create()
        }
        let subscription = source
            .delaySubscription(.seconds(10), scheduler: ValueDisposableScheduler(base: scheduler, log: log))
            .subscribe()
        scheduler.advance(by: 5)
        subscription.dispose()
        scheduler.advance(by: 10)
        subscription.dispose()
        XCTAssertEqual(subscribed, 0)
        XCTAssertEqual(log.names, ["scheduled"])
    }

    // MARK: - Disposables.create()

    func testEmptyDisposableIsOneSharedInstance() {
        let first = Disposables.create()
        let second = Disposables.create()
        XCTAssertTrue((first as AnyObject) === (second as AnyObject), "Disposables.create() made a new value")
        first.dispose()
        first.dispose()
        second.dispose()
    }
}
