import RxCore
import RxTesting
import XCTest

/// `Observable.generate` runs a loop over a state, one scheduled action per element and one for the
/// completion; disposing, or a downstream that has enough, stops the loop.
final class GenerateTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testEmitsEachStateWhileTheConditionHoldsThenCompletes() {
        let res = scheduler.start { [scheduler] in
            Observable.generate(initialState: 0, condition: { $0 <= 3 }, scheduler: scheduler) { $0 + 1 }
        }
        XCTAssertEqual(res.events, [.next(201, 0), .next(202, 1), .next(203, 2), .next(204, 3), .completed(205)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testAnInitialStateThatFailsTheConditionOnlyCompletes() {
        let res = scheduler.start { [scheduler] in
            Observable.generate(initialState: 10, condition: { $0 < 3 }, scheduler: scheduler) { $0 + 1 }
        }
        XCTAssertEqual(res.events, [.completed(201)])
    }

    func testAConditionThatThrowsFailsTheSequence() {
        let res = scheduler.start { [scheduler] in
            Observable.generate(initialState: 0, condition: { _ in throw TestError.boom }, scheduler: scheduler) { $0 + 1 }
        }
        XCTAssertEqual(res.events, [.error(201, TestError.boom)])
        XCTAssertTrue(scheduler.isIdle)
    }

    func testAnIterateThatThrowsFailsTheSequenceAfterTheFirstElement() {
        let res = scheduler.start { [scheduler] in
            Observable.generate(initialState: 0, condition: { _ in true }, scheduler: scheduler) { (_: Int) -> Int in
                throw TestError.boom
            }
        }
        XCTAssertEqual(res.events, [.next(201, 0), .error(202, TestError.boom)])
    }

    func testDisposingStopsTheLoop() {
        let steps = DisposeLog()
        let res = scheduler.start(disposed: 203) { [scheduler] in
            Observable.generate(initialState: 0, condition: { _ in true }, scheduler: scheduler) { state in
                steps.record("iterate \(state)")
                return state + 1
            }
        }
        XCTAssertEqual(res.events, [.next(201, 0), .next(202, 1)])
        XCTAssertEqual(steps.names, ["iterate 0"], "a state was computed after dispose")
        XCTAssertTrue(scheduler.isIdle, "the pending action was cancelled")
    }

    func testOnTheDefaultSchedulerTakeStopsAnEndlessLoop() {
        let steps = DisposeLog()
        let generated = Observable.generate(initialState: 0, condition: { _ in true }) { state in
            steps.record("iterate")
            return state + 1
        }
        XCTAssertEqual(collect(generated.take(4)), [.next(0), .next(1), .next(2), .next(3), .completed])
        XCTAssertEqual(steps.count, 3, "the loop went on after take(4) had its elements")
    }

    func testAnImmediateSchedulerRunsALongLoopInConstantStackDepth() {
        let generated = Observable.generate(initialState: 0, condition: { $0 < 100_000 }, scheduler: ImmediateScheduler.instance) { $0 + 1 }
        let recorder = Recorder<Int>()
        recorder.subscribe(generated.filter { $0.isMultiple(of: 25_000) }).dispose()
        XCTAssertEqual(recorder.events, [.next(0), .next(25_000), .next(50_000), .next(75_000), .completed])
    }

    func testEverySubscriptionRestartsFromTheInitialState() {
        let generated = Observable.generate(initialState: 1, condition: { $0 < 4 }) { $0 * 2 }
        XCTAssertEqual(collect(generated), [.next(1), .next(2), .completed])
        XCTAssertEqual(collect(generated), [.next(1), .next(2), .completed])
    }

    func testDisposingWhileAnActionIsPendingReleasesEverything() {
        assertDisposingWhileWaiting(at: 202, on: scheduler) { [scheduler] in
            Observable.generate(initialState: 0, condition: { _ in true }, scheduler: scheduler) { $0 + 1 }
        }
    }
}
