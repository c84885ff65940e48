import Foundation
import RxCore
import RxTesting
import XCTest

/// Regression tests for bugs found by reviewing RxCore; each one failed before its fix.
final class ReviewFindingsTests: RxTestCase {
    /// An object that owns a bag and is captured by the closures of a subscription it keeps in it:
    /// the everyday `subscribe(onNext: { self... }).disposed(by: bag)` pattern.
    // @unchecked Sendable: used from the test's one thread; it only has to be capturable by the
    // `@Sendable` handlers.
    private final class Owner: @unchecked Sendable {
        let bag = DisposeBag()
        var seen: [String] = []
    }

    // MARK: - subscribe(onNext:...) keeps its closures after the subscription ended

    func testSubscribeClosuresAreReleasedWhenTheSequenceCompletes() {
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            Observable.just(1)
                .subscribe(
                    onNext: { owner.seen.append("next \($0)") },
                    onError: { _ in owner.seen.append("error") },
                    onCompleted: { owner.seen.append("completed") },
                    onDisposed: { owner.seen.append("disposed") }
                )
                .disposed(by: owner.bag)
            XCTAssertEqual(owner.seen, ["next 1", "completed", "disposed"])
        }
        XCTAssertNil(weakOwner, "owner -> bag -> subscriber -> closure -> owner outlives the finished sequence")
    }

    func testSubscribeClosuresAreReleasedOnDispose() {
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            let subscription = Observable<Int>.never()
                .subscribe(onNext: { owner.seen.append("next \($0)") }, onDisposed: { owner.seen.append("disposed") })
            subscription.disposed(by: owner.bag)
            subscription.dispose()
            XCTAssertEqual(owner.seen, ["disposed"])
        }
        XCTAssertNil(weakOwner, "a disposed subscription still in the bag keeps its closures")
    }

    func testSingleSubscribeClosuresAreReleasedOnSuccess() {
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            Single.just(1)
                .subscribe(
                    onSuccess: { owner.seen.append("success \($0)") },
                    onFailure: { _ in owner.seen.append("failure") },
                    onDisposed: { owner.seen.append("disposed") }
                )
                .disposed(by: owner.bag)
            XCTAssertEqual(owner.seen, ["success 1", "disposed"])
        }
        XCTAssertNil(weakOwner, "owner -> bag -> single subscriber -> closure -> owner outlives the success")
    }

    // MARK: - A due time of minus infinity never fires on the Dispatch schedulers

    func testMinusInfinityIsADueTimeInThePastNotNever() {
        XCTAssertEqual(RxTimeInterval.seconds(-.infinity).dispatchInterval, .nanoseconds(0))
        XCTAssertEqual(RxTimeInterval.seconds(.infinity).dispatchInterval, .never)
    }

    func testARelativeActionDueAtMinusInfinityRunsAtOnceOnADispatchScheduler() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "review-minus-infinity")
        let fired = expectation(description: "a past due time runs at once, as on TestScheduler")
        let subscription = Observable<Int>.timer(.seconds(-.infinity), scheduler: scheduler)
            .subscribe(onNext: { _ in fired.fulfill() })
        wait(for: [fired], timeout: 1)
        subscription.dispose()
    }

    func testAPeriodicTimerStartingAtMinusInfinityTicksOnADispatchScheduler() {
        let scheduler = SerialDispatchQueueScheduler(internalSerialQueueName: "review-minus-infinity-periodic")
        let fired = expectation(description: "ticks")
        let subscription = Observable<Int>.timer(.seconds(-.infinity), period: .milliseconds(10), scheduler: scheduler)
            .take(2)
            .subscribe(onCompleted: { fired.fulfill() })
        wait(for: [fired], timeout: 1)
        subscription.dispose()
    }

    // MARK: - timeout(other:) keeps iterating a synchronous `other` after downstream is done

    func testTimeoutStopsIteratingASynchronousOtherOnceDownstreamIsDone() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        var pulled = 0
        // Long but finite, so that the broken behaviour fails the assertion instead of hanging.
        let naturals = sequence(first: 0) { value -> Int? in
            pulled += 1
            return value < 100_000 ? value + 1 : nil
        }
        let res = scheduler.start {
            Observable<Int>.never()
                .timeout(.seconds(10), other: Observable.from(naturals), scheduler: scheduler)
                .take(2)
        }
        XCTAssertEqual(res.events, [.next(210, 0), .next(210, 1), .completed(210)])
        XCTAssertLessThanOrEqual(pulled, 2, "`from` must see that nobody listens behind the timeout any more")
    }
}
