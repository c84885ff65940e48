import Foundation
import RxCore
import RxTesting
import XCTest

/// `from(_:scheduler:)`, `of(_:scheduler:)`, `just(_:scheduler:)` and `from(optional:scheduler:)`
/// send each element, and the completion, as an action of their own on the scheduler.
final class ScheduledFromTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testAnEndlessSequenceOnTheCurrentThreadStopsWhenTakeHasEnough() {
        // The whole loop runs inside `subscribe` here, before `take` can dispose the source: it
        // must stop as soon as nothing downstream listens (it used to run forever).
        nonisolated(unsafe) var received: [Int] = []
        nonisolated(unsafe) var completed = false
        let subscription = Observable.from(1..., scheduler: CurrentThreadScheduler.instance)
            .take(3)
            .subscribe(onNext: { received.append($0) }, onCompleted: { completed = true })
        XCTAssertEqual(received, [1, 2, 3])
        XCTAssertTrue(completed)
        subscription.dispose()
    }

    func testOfSendsEachElementAndTheCompletionAsAnActionOfItsOwn() {
        let res = scheduler.start { [scheduler] in Observable.of(1, 2, 3, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 1), .next(202, 2), .next(203, 3), .completed(204)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testFromASequenceSendsEachElementAsAnActionOfItsOwn() {
        let res = scheduler.start { [scheduler] in Observable.from(["a", "b"], scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, "a"), .next(202, "b"), .completed(203)])
    }

    func testWithoutTheProcessingDelayEverythingIsSentAtTheSubscriptionTick() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let res = scheduler.start { [scheduler] in Observable.from(1...3, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(200, 1), .next(200, 2), .next(200, 3), .completed(200)])
    }

    func testAnEmptySequenceCompletesInOneAction() {
        let res = scheduler.start { [scheduler] in Observable<Int>.from([], scheduler: scheduler) }
        XCTAssertEqual(res.events, [.completed(201)])
    }

    func testJustSendsTheElementThenTheCompletionInAnotherAction() {
        let res = scheduler.start { [scheduler] in Observable.just(42, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 42), .completed(202)])
    }

    func testFromOptionalWithASchedulerSendsTheValueIfAny() {
        let some = scheduler.start { [scheduler] in Observable.from(optional: Optional(7), scheduler: scheduler) }
        XCTAssertEqual(some.events, [.next(201, 7), .completed(202)])
        let other = TestScheduler(initialClock: 0)
        let none = other.start { Observable<Int>.from(optional: nil, scheduler: other) }
        XCTAssertEqual(none.events, [.completed(201)])
    }

    func testFromOptionalSendsTheValueIfAnySynchronously() {
        let some = scheduler.start { Observable.from(optional: Optional(7)) }
        XCTAssertEqual(some.events, [.next(200, 7), .completed(200)])
        XCTAssertEqual(collect(Observable<Int>.from(optional: nil)), [.completed])
    }

    func testDisposingStopsThePendingActionAndNothingMoreIsSent() {
        let res = scheduler.start(disposed: 202) { [scheduler] in Observable.of(1, 2, 3, 4, scheduler: scheduler) }
        XCTAssertEqual(res.events, [.next(201, 1)])
        XCTAssertTrue(scheduler.isIdle, "the pending action was cancelled")
    }

    func testAnInfiniteSequenceStopsWhenDownstreamHasEnough() {
        let res = scheduler.start { [scheduler] in Observable.from(1..., scheduler: scheduler).take(3) }
        XCTAssertEqual(res.events, [.next(201, 1), .next(202, 2), .next(203, 3), .completed(203)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testAnErrorFromDownstreamStopsTheSequence() {
        let res = scheduler.start { [scheduler] in
            Observable.of(1, 2, 3, scheduler: scheduler).map { value -> Int in
                if value == 2 { throw TestError.boom }
                return value
            }
        }
        XCTAssertEqual(res.events, [.next(201, 1), .error(202, TestError.boom)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testAnImmediateSchedulerRunsManyElementsInConstantStackDepth() {
        let count = 100_000
        nonisolated(unsafe) var received = 0
        nonisolated(unsafe) var completed = false
        let subscription = Observable.from(0..<count, scheduler: ImmediateScheduler.instance)
            .subscribe(onNext: { _ in received += 1 }, onCompleted: { completed = true })
        XCTAssertEqual(received, count)
        XCTAssertTrue(completed)
        subscription.dispose()
    }

    func testTheCurrentThreadSchedulerSendsEverythingBeforeSubscribeReturns() {
        XCTAssertEqual(
            collect(Observable.of(1, 2, 3, scheduler: CurrentThreadScheduler.instance)),
            [.next(1), .next(2), .next(3), .completed]
        )
    }

    func testDispatchSchedulersDeliverInOrderWithoutOverlap() {
        let schedulers: [any ImmediateSchedulerType] = [
            SerialDispatchQueueScheduler(internalSerialQueueName: "scheduled-from"),
            ConcurrentDispatchQueueScheduler(qos: .userInitiated),
        ]
        for scheduler in schedulers {
            let recorder = Recorder<Int>()
            let subscription = recorder.subscribe(Observable.from(0..<500, scheduler: scheduler))
            let deadline = Date().addingTimeInterval(5)
            while recorder.terminalCount == 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
            recorder.assertOneTerminal()
            XCTAssertEqual(recorder.elements, Array(0..<500))
            subscription.dispose()
        }
    }
}
