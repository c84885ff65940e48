import RxCore
import RxTesting
import XCTest

final class MaybeOperatorTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    /// A `Maybe` over a hot source: `[.next(t, x), .completed(t)]` succeeds at `t`.
    private func hot(_ events: [Recorded<Event<Int>>]) -> TestableObservable<Int> {
        scheduler.createHotObservable(events)
    }

    func testMapTransformsTheElementAndPassesCompletionAndErrors() {
        XCTAssertEqual(collect(Maybe.just(2).map { $0 * 10 }), [.next(20), .completed])
        XCTAssertEqual(collect(Maybe<Int>.empty().map { $0 * 10 }), [.completed])
        XCTAssertEqual(collect(Maybe<Int>.error(TestError.boom).map { $0 * 10 }), [.error(TestError.boom)])
        XCTAssertEqual(collect(Maybe.just(2).map { _ -> Int in throw TestError.other }), [.error(TestError.other)])
    }

    func testMapInVirtualTimeDeliversAtTheSourceTickAndReleasesIt() {
        let xs = hot([.next(210, 1), .completed(210)])
        let res = scheduler.start { xs.asMaybe().map { $0 + 1 }.asObservable() }
        XCTAssertEqual(res.events, [.next(210, 2), .completed(210)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
    }

    func testCompactMapCompletesEmptyWhenTheTransformReturnsNil() {
        XCTAssertEqual(collect(Maybe.just("1").compactMap(Int.init)), [.next(1), .completed])
        XCTAssertEqual(collect(Maybe.just("a").compactMap(Int.init)), [.completed])
        XCTAssertEqual(collect(Maybe<String>.error(TestError.boom).compactMap(Int.init)), [.error(TestError.boom)])
        XCTAssertEqual(collect(Maybe.just("1").compactMap { _ -> Int? in throw TestError.other }), [.error(TestError.other)])
    }

    func testFilterKeepsAPassingElementAndOtherwiseCompletesEmpty() {
        XCTAssertEqual(collect(Maybe.just(4).filter { $0 > 3 }), [.next(4), .completed])
        XCTAssertEqual(collect(Maybe.just(2).filter { $0 > 3 }), [.completed])
        XCTAssertEqual(collect(Maybe.just(2).filter { _ in throw TestError.boom }), [.error(TestError.boom)])
    }

    func testFlatMapChainsTheNextMaybeAndSkipsItWhenEmpty() {
        nonisolated(unsafe) var selectorCalls = 0
        let chain = { (maybe: Maybe<Int>) in
            maybe.flatMap { element -> Maybe<String> in
                selectorCalls += 1
                return element > 0 ? .just("\(element)") : .empty()
            }
        }
        XCTAssertEqual(collect(chain(.just(5))), [.next("5"), .completed])
        XCTAssertEqual(collect(chain(.just(0))), [.completed])
        XCTAssertEqual(collect(chain(.empty())), [.completed])
        XCTAssertEqual(selectorCalls, 2)
        XCTAssertEqual(collect(chain(.error(TestError.boom))), [.error(TestError.boom)])
        XCTAssertEqual(collect(Maybe.just(1).flatMap { _ -> Maybe<Int> in throw TestError.other }), [.error(TestError.other)])
    }

    func testFlatMapSubscribesTheInnerMaybeAfterTheElementAndDisposesIt() {
        let xs = hot([.next(210, 1), .completed(210)])
        let ys = scheduler.createColdObservable([.next(20, 7), .completed(20)])
        let res = scheduler.start { xs.asMaybe().flatMap { _ in ys.asMaybe() }.asObservable() }
        XCTAssertEqual(res.events, [.next(230, 7), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 230)])
    }

    func testFlatMapDisposedWhileTheInnerRunsDisposesIt() {
        let xs = hot([.next(210, 1), .completed(210)])
        let ys = scheduler.createColdObservable([.next(100, 7), .completed(100)])
        let res = scheduler.start(disposed: 250) { xs.asMaybe().flatMap { _ in ys.asMaybe() }.asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 250)])
    }

    func testCatchSwitchesToTheFallbackMaybeAtTheErrorTick() {
        let xs = hot([.error(210, TestError.boom)])
        let ys = scheduler.createColdObservable([.completed(10, Int.self)])
        nonisolated(unsafe) var caught: [Observed<Int>] = []
        let res = scheduler.start {
            xs.asMaybe().catch { error in
                caught.append(.error(error))
                return ys.asMaybe()
            }
            .asObservable()
        }
        XCTAssertEqual(res.events, [.completed(220)])
        XCTAssertEqual(caught, [.error(TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 220)])
    }

    func testCatchFailsWithTheFallbacksOrTheThrownErrorAndLeavesSuccessAlone() {
        XCTAssertEqual(collect(Maybe.just(1).catch { _ in .just(9) }), [.next(1), .completed])
        XCTAssertEqual(collect(Maybe<Int>.empty().catch { _ in .just(9) }), [.completed])
        XCTAssertEqual(collect(Maybe<Int>.error(TestError.boom).catch { _ in .error(TestError.other) }), [.error(TestError.other)])
        XCTAssertEqual(collect(Maybe<Int>.error(TestError.boom).catch { _ in throw TestError.other }), [.error(TestError.other)])
    }

    func testCatchAndReturnReplacesTheError() {
        XCTAssertEqual(collect(Maybe<Int>.error(TestError.boom).catchAndReturn(0)), [.next(0), .completed])
        XCTAssertEqual(collect(Maybe.just(5).catchAndReturn(0)), [.next(5), .completed])
        XCTAssertEqual(collect(Maybe<Int>.empty().catchAndReturn(0)), [.completed])
    }

    func testDoRunsTheHandlersInOrderAroundTheElement() {
        let scheduler = self.scheduler
        nonisolated(unsafe) var log: [String] = []
        let xs = hot([.next(210, 1), .completed(210)])
        let res = scheduler.start {
            xs.asMaybe().do(
                onNext: { log.append("onNext \($0)") },
                afterNext: { log.append("afterNext \($0)") },
                onError: { _ in log.append("onError") },
                onCompleted: { log.append("onCompleted") },
                afterCompleted: { log.append("afterCompleted") },
                onSubscribe: { log.append("onSubscribe \(scheduler.clock)") },
                onSubscribed: { log.append("onSubscribed") },
                onDispose: { log.append("onDispose \(scheduler.clock)") }
            )
            .asObservable()
        }
        XCTAssertEqual(res.events, [.next(210, 1), .completed(210)])
        XCTAssertEqual(log, [
            "onSubscribe 200", "onSubscribed", "onNext 1", "afterNext 1", "onCompleted", "afterCompleted",
            "onDispose 210",
        ])
    }

    func testDoWithSuccessSpellingSeesTheElementAndTheErrors() {
        nonisolated(unsafe) var log: [String] = []
        _ = Maybe.just(1).do(onSuccess: { log.append("success \($0)") }, afterSuccess: { _ in log.append("after") }).subscribe()
        _ = Maybe<Int>.error(TestError.boom).do(onSuccess: { _ in log.append("no") }, onError: { log.append("error \($0)") }).subscribe()
        _ = Maybe<Int>.empty().do(onError: { _ in log.append("no") }, onCompleted: { log.append("completed") }).subscribe()
        XCTAssertEqual(log, ["success 1", "after", "error boom", "completed"])
    }

    func testDoFailsWhenOnNextThrowsAndDropsAnErrorThrownAfterTheElement() {
        XCTAssertEqual(collect(Maybe.just(1).do(onNext: { _ in throw TestError.boom })), [.error(TestError.boom)])
        XCTAssertEqual(collect(Maybe.just(1).do(afterNext: { _ in throw TestError.boom })), [.next(1), .completed])
        XCTAssertEqual(collect(Maybe<Int>.error(TestError.boom).do(onError: { _ in throw TestError.other })), [.error(TestError.other)])
    }

    func testDoOnDisposeRunsOnceWhenDisposedBeforeTheOutcome() {
        let scheduler = self.scheduler
        nonisolated(unsafe) var disposedAt: [TestTime] = []
        let xs = hot([.next(400, 1), .completed(400)])
        let res = scheduler.start(disposed: 300) {
            xs.asMaybe().do(onDispose: { disposedAt.append(scheduler.clock) }).asObservable()
        }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(disposedAt, [300])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testRetryResubscribesUntilTheAttemptsRunOut() {
        nonisolated(unsafe) var attempts = 0
        let flaky = Maybe<Int>.deferred {
            attempts += 1
            return attempts < 3 ? .error(TestError.boom) : .just(attempts)
        }
        XCTAssertEqual(collect(flaky.retry(3)), [.next(3), .completed])
        attempts = 0
        XCTAssertEqual(collect(flaky.retry(2)), [.error(TestError.boom)])
        attempts = 0
        XCTAssertEqual(collect(flaky.retry()), [.next(3), .completed])
        XCTAssertEqual(collect(flaky.retry(0)), [.completed])
        XCTAssertEqual(collect(flaky.retry(-1)), [.error(RxError.argumentOutOfRange)])
    }

    func testRetryInVirtualTimeResubscribesAtTheErrorTick() {
        let xs = scheduler.createColdObservable([.error(10, TestError.boom, Int.self)])
        let res = scheduler.start { xs.asMaybe().retry(3).asObservable() }
        XCTAssertEqual(res.events, [.error(230, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210), Subscription(210, 220), Subscription(220, 230)])
    }

    func testRetryWhenResubscribesWhenTheTriggerFiresAndCompletesEmptyWhenItCompletes() {
        let scheduler = self.scheduler
        let xs = scheduler.createColdObservable([.error(10, TestError.boom, Int.self)])
        let res = scheduler.start {
            xs.asMaybe().retry { (errors: Observable<TestError>) in
                errors.delay(.seconds(5), scheduler: scheduler).take(1)
            }
            .asObservable()
        }
        XCTAssertEqual(res.events, [.completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210), Subscription(215, 225)])

        nonisolated(unsafe) var attempts = 0
        let flaky = Maybe<Int>.deferred {
            attempts += 1
            return attempts < 2 ? .error(TestError.boom) : .just(attempts)
        }
        XCTAssertEqual(collect(flaky.retry { (errors: Observable<Error>) in errors }), [.next(2), .completed])
        attempts = 0
        XCTAssertEqual(collect(flaky.retryWhen { (errors: Observable<Error>) in errors }), [.next(2), .completed])
        attempts = 0
        XCTAssertEqual(collect(flaky.retryWhen { (errors: Observable<TestError>) in errors }), [.next(2), .completed])
    }

    func testIfEmptyDefaultSucceedsWithTheDefaultOnlyWhenEmpty() {
        XCTAssertEqual(collect(Maybe<Int>.empty().ifEmpty(default: 5)), [.next(5)])
        XCTAssertEqual(collect(Maybe.just(1).ifEmpty(default: 5)), [.next(1)])
        XCTAssertEqual(collect(Maybe<Int>.error(TestError.boom).ifEmpty(default: 5)), [.error(TestError.boom)])
        let nilElement = Maybe<Int?>.just(nil).ifEmpty(default: 5).asObservable().map { $0 == nil }
        XCTAssertEqual(collect(nilElement), [.next(true), .completed])
    }

    func testIfEmptySwitchToSubscribesTheOtherOnlyAfterAnEmptyCompletion() {
        let xs = hot([.completed(210, Int.self)])
        let ys = scheduler.createColdObservable([.next(10, 8), .completed(10)])
        let res = scheduler.start { xs.asMaybe().ifEmpty(switchTo: ys.asMaybe()).asObservable() }
        XCTAssertEqual(res.events, [.next(220, 8), .completed(220)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 220)])

        nonisolated(unsafe) var otherSubscriptions = 0
        let other = Single<Int>.deferred {
            otherSubscriptions += 1
            return .just(9)
        }
        XCTAssertEqual(collect(Maybe.just(1).ifEmpty(switchTo: other)), [.next(1)])
        XCTAssertEqual(otherSubscriptions, 0)
        XCTAssertEqual(collect(Maybe<Int>.empty().ifEmpty(switchTo: other)), [.next(9)])
        XCTAssertEqual(collect(Maybe<Int>.error(TestError.boom).ifEmpty(switchTo: other)), [.error(TestError.boom)])
        XCTAssertEqual(collect(Maybe<Int>.empty().ifEmpty(switchTo: Maybe<Int>.empty())), [.completed])
        XCTAssertEqual(otherSubscriptions, 1)
    }

    func testIfEmptySwitchToDisposedWhileOnTheOtherDisposesIt() {
        let xs = hot([.completed(210, Int.self)])
        let ys = scheduler.createColdObservable([.next(100, 8), .completed(100)])
        let res = scheduler.start(disposed: 250) { xs.asMaybe().ifEmpty(switchTo: ys.asSingle()).asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 250)])
    }

    func testDebugPassesTheEventThrough() {
        XCTAssertEqual(collect(Maybe.just(1).debug("maybe")), [.next(1), .completed])
    }
}
