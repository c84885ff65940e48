import RxCore
import RxTesting
import XCTest

final class SingleRetryTests: RxTestCase {
    /// Fails its first `failures` subscriptions with `AttemptError`, then succeeds with the attempt.
    private func flaky(failures: Int, subscriptions: LockedBox<Int>) -> Single<Int> {
        Single.deferred {
            var attempt = 0
            subscriptions.mutate {
                $0 += 1
                attempt = $0
            }
            return attempt <= failures ? .error(AttemptError(attempt: attempt)) : .just(attempt)
        }
    }

    func testRetryCountsEverySubscription() {
        let subscriptions = LockedBox(0)
        XCTAssertEqual(collect(flaky(failures: 2, subscriptions: subscriptions).retry(3)), [.next(3)])
        XCTAssertEqual(subscriptions.value, 3)
        XCTAssertEqual(collect(flaky(failures: 9, subscriptions: LockedBox(0)).retry(2)), [.error(AttemptError(attempt: 2))])
    }

    func testRetryForeverAndRetryZero() {
        XCTAssertEqual(collect(flaky(failures: 20, subscriptions: LockedBox(0)).retry()), [.next(21)])
        let subscriptions = LockedBox(0)
        XCTAssertEqual(collect(flaky(failures: 0, subscriptions: subscriptions).retry(0)), [.error(RxError.noElements)])
        XCTAssertEqual(subscriptions.value, 0)
    }

    func testManySynchronousRetriesDoNotGrowTheStack() {
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).retry(100_000)), [.error(TestError.boom)])
    }

    func testRetryWhenResubscribesOnEachTriggerElement() {
        let subscriptions = LockedBox(0)
        let single = flaky(failures: 2, subscriptions: subscriptions).retry(when: { errors in
            errors.enumerated().map { index, error -> Int in
                if index >= 5 { throw error }
                return index
            }
        })
        XCTAssertEqual(collect(single), [.next(3)])
        XCTAssertEqual(subscriptions.value, 3)
        XCTAssertEqual(
            collect(flaky(failures: 9, subscriptions: LockedBox(0)).retry(when: { (errors: Observable<AttemptError>) in
                errors.map { error -> Int in
                    if error.attempt == 2 { throw error }
                    return error.attempt
                }
            })),
            [.error(AttemptError(attempt: 2))]
        )
    }

    func testRetryWhenOlderSpelling() {
        let single = flaky(failures: 1, subscriptions: LockedBox(0)).retryWhen { errors in errors.map { _ in 0 } }
        XCTAssertEqual(collect(single), [.next(2)])
    }

    func testATriggerThatCompletesFailsTheSingleWithNoElementsEvenAsAnObservable() {
        let single = Single<Int>.error(TestError.boom).retry(when: { errors in errors.take(while: { _ in false }) })
        XCTAssertEqual(collect(single), [.error(RxError.noElements)])
        XCTAssertEqual(collect(single.asObservable()), [.error(RxError.noElements)])
        XCTAssertEqual(collect(Single.just(1).retry(0).asObservable()), [.error(RxError.noElements)])
    }
}
