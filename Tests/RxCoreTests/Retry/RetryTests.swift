import Foundation
import RxCore
import RxTesting
import XCTest

final class RetryTests: RxTestCase {
    /// A source that fails its first `failures` subscriptions (with the attempt number), then
    /// emits the attempt number and completes.
    private func flaky(failures: Int, subscriptions: LockedBox<Int>) -> Observable<Int> {
        Observable.deferred {
            nonisolated(unsafe) var attempt = 0
            subscriptions.mutate {
                $0 += 1
                attempt = $0
            }
            if attempt <= failures {
                return Observable.create { observer in
                    observer.onNext(attempt * 10)
                    observer.onError(AttemptError(attempt: attempt))
                    return Disposables.create()
                }
            }
            return .just(attempt)
        }
    }

    func testRetriesUntilTheSourceSucceeds() {
        let subscriptions = LockedBox(0)
        let events = collect(flaky(failures: 2, subscriptions: subscriptions).retry(3))
        XCTAssertEqual(events, [.next(10), .next(20), .next(3), .completed])
        XCTAssertEqual(subscriptions.value, 3)
    }

    func testTheCountIncludesTheFirstSubscriptionAndTheLastErrorIsDeliveredUnchanged() {
        let subscriptions = LockedBox(0)
        let events = collect(flaky(failures: 5, subscriptions: subscriptions).retry(3))
        XCTAssertEqual(events, [.next(10), .next(20), .next(30), .error(AttemptError(attempt: 3))])
        XCTAssertEqual(subscriptions.value, 3)
    }

    func testRetryOneNeverRetries() {
        let subscriptions = LockedBox(0)
        let events = collect(flaky(failures: 5, subscriptions: subscriptions).retry(1))
        XCTAssertEqual(events, [.next(10), .error(AttemptError(attempt: 1))])
        XCTAssertEqual(subscriptions.value, 1)
    }

    func testRetryZeroCompletesWithoutSubscribingAndNegativeFails() {
        let subscriptions = LockedBox(0)
        XCTAssertEqual(collect(flaky(failures: 5, subscriptions: subscriptions).retry(0)), [.completed])
        XCTAssertEqual(collect(flaky(failures: 5, subscriptions: subscriptions).retry(-1)), [.error(RxError.argumentOutOfRange)])
        XCTAssertEqual(subscriptions.value, 0)
    }

    func testRetryForeverRetriesUntilSuccess() {
        let subscriptions = LockedBox(0)
        let events = collect(flaky(failures: 50, subscriptions: subscriptions).retry())
        XCTAssertEqual(events.last, .completed)
        XCTAssertEqual(events.count, 52)
        XCTAssertEqual(subscriptions.value, 51)
    }

    func testManySynchronousFailuresDoNotGrowTheStack() {
        let subscriptions = LockedBox(0)
        let source = Observable<Int>.deferred {
            subscriptions.mutate { $0 += 1 }
            return .error(TestError.boom)
        }
        XCTAssertEqual(collect(source.retry(100_000)), [.error(TestError.boom)])
        XCTAssertEqual(subscriptions.value, 100_000)
        XCTAssertEqual(collect(Observable<Int>.error(TestError.boom).retry(100_000)), [.error(TestError.boom)])
    }

    func testDisposingDisposesTheCurrentAttemptAndStopsRetrying() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.retry(10))
        source.onNext(1)
        source.onError(TestError.boom)
        XCTAssertEqual(source.subscriptions, 2)
        XCTAssertEqual(source.observerCount, 1, "the failed attempt was released")
        source.onNext(2)
        subscription.dispose()
        source.onError(TestError.boom)
        source.onNext(3)
        XCTAssertEqual(source.subscriptions, 2)
        XCTAssertEqual(source.observerCount, 0)
        XCTAssertEqual(recorder.events, [.next(1), .next(2)])
    }

    func testAFailureOnAnotherThreadResubscribesOnce() {
        let source = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.retry(3))
        let done = expectation(description: "failed on a background thread")
        DispatchQueue.global().async {
            source.onError(TestError.boom)
            done.fulfill()
        }
        wait(for: [done], timeout: 2)
        XCTAssertEqual(source.subscriptions, 2)
        source.onNext(1)
        source.onCompleted()
        XCTAssertEqual(recorder.events, [.next(1), .completed])
        subscription.dispose()
    }

    func testStopsRetryingOnceNothingDownstreamListens() {
        let subscriptions = LockedBox(0)
        let events = collect(flaky(failures: 1_000, subscriptions: subscriptions).retry().take(1))
        XCTAssertEqual(events, [.next(10), .completed])
        XCTAssertEqual(subscriptions.value, 1)
    }

    func testConformance() {
        assertOperatorBasics { $0.retry(2) }
    }
}

/// An error that says which attempt failed.
struct AttemptError: Error, Equatable {
    let attempt: Int
}
