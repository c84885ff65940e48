import Foundation
import RxCore
import RxTesting
import XCTest

final class RetryWhenTests: RxTestCase {
    /// Fails its first `failures` subscriptions with `AttemptError`, then emits the attempt number.
    private func flaky(failures: Int, subscriptions: LockedBox<Int>) -> Observable<Int> {
        Observable.deferred {
            var attempt = 0
            subscriptions.mutate {
                $0 += 1
                attempt = $0
            }
            return attempt <= failures ? .error(AttemptError(attempt: attempt)) : .just(attempt)
        }
    }

    func testEachTriggerElementResubscribesAndTheHandlerSeesEveryError() {
        let subscriptions = LockedBox(0)
        nonisolated(unsafe) var seen: [Observed<Int>] = []
        let events = collect(flaky(failures: 2, subscriptions: subscriptions).retry(when: { errors in
            errors.map { error in seen.append(.error(error)) }
        }))
        XCTAssertEqual(events, [.next(3), .completed])
        XCTAssertEqual(subscriptions.value, 3)
        XCTAssertEqual(seen, [.error(AttemptError(attempt: 1)), .error(AttemptError(attempt: 2))])
    }

    func testATriggerErrorEndsTheSequenceWithIt() {
        let subscriptions = LockedBox(0)
        let events = collect(flaky(failures: 10, subscriptions: subscriptions).retry(when: { errors in
            errors.enumerated().map { index, error -> Int in
                if index >= 2 { throw error }
                return index
            }
        }))
        XCTAssertEqual(events, [.error(AttemptError(attempt: 3))])
        XCTAssertEqual(subscriptions.value, 3)
    }

    func testTheOlderSpellingBehavesTheSame() {
        let subscriptions = LockedBox(0)
        let events = collect(flaky(failures: 1, subscriptions: subscriptions).retryWhen { errors in errors.map { _ in 0 } })
        XCTAssertEqual(events, [.next(2), .completed])
    }

    func testTriggerElementsCountOnlyAfterAFailure() {
        let source = DrivenSource<Int>()
        let trigger = DrivenSource<Void>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.retry(when: { (_: Observable<Error>) in trigger.observable }))
        trigger.onNext(())
        XCTAssertEqual(source.subscriptions, 1, "a trigger while the attempt runs is ignored")
        source.onError(TestError.boom)
        XCTAssertEqual(source.subscriptions, 1, "waits for the trigger")
        trigger.onNext(())
        trigger.onNext(())
        XCTAssertEqual(source.subscriptions, 2, "one new attempt per failure")
        source.onNext(7)
        source.onCompleted()
        XCTAssertEqual(recorder.events, [.next(7), .completed])
        XCTAssertEqual(trigger.observerCount, 0, "the trigger is released")
        subscription.dispose()
    }

    func testATriggerEndingWhileWaitingEndsTheSequenceAtOnce() {
        for ending in [Observed<Int>.completed, .error(TestError.other)] {
            let source = DrivenSource<Int>()
            let trigger = DrivenSource<Void>()
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(source.observable.retry(when: { (_: Observable<Error>) in trigger.observable }))
            source.onError(TestError.boom)
            if ending == .completed { trigger.onCompleted() } else { trigger.onError(TestError.other) }
            XCTAssertEqual(recorder.events, [ending])
            XCTAssertEqual(source.observerCount, 0)
            XCTAssertEqual(trigger.observerCount, 0)
            subscription.dispose()
        }
    }

    func testATriggerEndingWhileAnAttemptRunsTakesEffectWhenItFails() {
        let source = DrivenSource<Int>()
        let trigger = DrivenSource<Void>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.retry(when: { (_: Observable<Error>) in trigger.observable }))
        trigger.onCompleted()
        source.onNext(1)
        XCTAssertEqual(recorder.events, [.next(1)])
        source.onError(TestError.boom)
        XCTAssertEqual(recorder.events, [.next(1), .completed])
        XCTAssertEqual(source.observerCount, 0)
        subscription.dispose()
    }

    func testAHandlerThatEndsAtOnceStillRunsTheSourceOnce() {
        XCTAssertEqual(collect(Observable<Int>.of(1).retry(when: { (_: Observable<Error>) in Observable<Int>.empty() })), [.next(1), .completed])
        XCTAssertEqual(
            collect(Observable<Int>.error(TestError.boom).retry(when: { (_: Observable<Error>) in Observable<Int>.error(TestError.other) })),
            [.error(TestError.other)]
        )
    }

    func testAnErrorOfAnotherTypeThanTheHandlersIsDeliveredAtOnce() {
        nonisolated(unsafe) var handled = 0
        let events = collect(Observable<Int>.error(AttemptError(attempt: 1)).retry(when: { (errors: Observable<TestError>) in
            errors.map { _ in handled += 1 }
        }))
        XCTAssertEqual(events, [.error(AttemptError(attempt: 1))])
        XCTAssertEqual(handled, 0)
    }

    func testManySynchronousRetriesDoNotGrowTheStack() {
        let subscriptions = LockedBox(0)
        let events = collect(flaky(failures: 1_000_000, subscriptions: subscriptions).retry(when: { errors in
            errors.enumerated().map { index, error -> Int in
                if index >= 99_999 { throw error }
                return index
            }
        }))
        XCTAssertEqual(events, [.error(AttemptError(attempt: 100_000))])
        XCTAssertEqual(subscriptions.value, 100_000)
    }

    func testDisposingDisposesTheAttemptAndTheTrigger() {
        let source = DrivenSource<Int>()
        let trigger = DrivenSource<Void>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.retry(when: { (_: Observable<Error>) in trigger.observable }))
        source.onError(TestError.boom)
        trigger.onNext(())
        source.onNext(1)
        subscription.dispose()
        trigger.onNext(())
        source.onNext(2)
        XCTAssertEqual(recorder.events, [.next(1)])
        XCTAssertEqual(source.observerCount, 0)
        XCTAssertEqual(trigger.observerCount, 0)
        XCTAssertEqual(source.subscriptions, 2)
        XCTAssertEqual(recorder.disposed, 1)
    }

    func testConformance() {
        assertOperatorBasics { $0.retry(when: { errors in errors.take(1) }) }
    }

    func testATriggerFiringFromAnotherThreadKeepsTheGrammar() {
        for _ in 0..<300 {
            let source = DrivenSource<Int>()
            let trigger = DrivenSource<Int>()
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(source.observable.retry(when: { (_: Observable<Error>) in trigger.observable }))
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for value in 0..<10 {
                        source.onNext(value)
                        source.onError(TestError.boom)
                    }
                } else {
                    for value in 0..<10 { trigger.onNext(value) }
                    trigger.onCompleted()
                }
            }
            // Whether the trigger ended while waiting (done) or while an attempt ran (latched),
            // the next failure, if one is needed, ends the sequence with completion.
            source.onError(TestError.boom)
            recorder.assertOneTerminal()
            XCTAssertEqual(recorder.events.last, .completed)
            XCTAssertEqual(source.observerCount, 0)
            XCTAssertEqual(trigger.observerCount, 0)
            subscription.dispose()
        }
    }

    func testATriggerFailingFromAnotherThreadWhileDisposingKeepsTheGrammar() {
        for _ in 0..<300 {
            let source = DrivenSource<Int>()
            let trigger = DrivenSource<Int>()
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(source.observable.retry(when: { (_: Observable<Error>) in trigger.observable }))
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                switch index {
                case 0:
                    for value in 0..<10 {
                        source.onNext(value)
                        source.onError(TestError.boom)
                    }
                case 1:
                    for value in 0..<10 { trigger.onNext(value) }
                    trigger.onError(TestError.other)
                default:
                    subscription.dispose()
                }
            }
            subscription.dispose()
            XCTAssertLessThanOrEqual(recorder.terminalCount, 1)
            XCTAssertEqual(recorder.eventsAfterTerminal, 0)
            XCTAssertEqual(recorder.overlapCount, 0)
            XCTAssertEqual(recorder.disposed, 1)
            XCTAssertEqual(source.observerCount, 0)
            XCTAssertEqual(trigger.observerCount, 0)
        }
    }
}
