import RxCore
import RxTesting
import XCTest

final class CompletableOperatorTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    private func hot(_ events: [Recorded<Event<Never>>]) -> TestableObservable<Never> {
        scheduler.createHotObservable(events)
    }

    private func cold(_ events: [Recorded<Event<Never>>]) -> TestableObservable<Never> {
        scheduler.createColdObservable(events)
    }

    private func events(of completable: Completable) -> [CompletableEvent] {
        nonisolated(unsafe) var events: [CompletableEvent] = []
        completable.subscribe { events.append($0) }.dispose()
        return events
    }

    func testConcatRunsTheSecondAfterTheFirstCompletes() {
        let xs = hot([.completed(210)])
        let ys = cold([.completed(20)])
        let res = scheduler.start { xs.asCompletable().concat(ys.asCompletable()).asObservable() }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 230)])
    }

    func testConcatStopsAtTheFirstErrorWithoutSubscribingTheRest() {
        let xs = cold([.completed(10)])
        let ys = cold([.error(10, TestError.boom)])
        let zs = cold([.completed(10)])
        let res = scheduler.start {
            Completable.concat(xs.asCompletable(), ys.asCompletable(), zs.asCompletable()).asObservable()
        }
        XCTAssertEqual(res.events, [.error(220, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 220)])
        XCTAssertEqual(zs.subscriptions, [])
    }

    func testConcatOfACollectionOrSequenceRunsEachInOrder() {
        nonisolated(unsafe) var order: [String] = []
        let step = { (name: String) in
            Completable.deferred {
                order.append(name)
                return .empty()
            }
        }
        XCTAssertEqual(events(of: Completable.concat([step("a"), step("b")])), [.completed])
        XCTAssertEqual(events(of: Completable.concat(AnySequence([step("c"), step("d")]))), [.completed])
        XCTAssertEqual(events(of: Completable.concat([Completable]())), [.completed])
        XCTAssertEqual(events(of: Completable.concat()), [.completed])
        XCTAssertEqual(order, ["a", "b", "c", "d"])
    }

    func testConcatDisposedWhileTheSecondRunsDisposesIt() {
        let ys = cold([.completed(100)])
        let res = scheduler.start(disposed: 250) { Completable.empty().concat(ys.asCompletable()).asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }

    func testConcatReleasesTheFirstCompletableOnceItHasCompleted() {
        final class Token: Sendable {}
        let x = hot([.completed(210)])
        var token: Token? = Token()
        weak let weakToken = token
        var completable: Completable? = x.asCompletable().do(onCompleted: { [token] in _ = token })
        let subscription = completable?.concat(.never()).subscribe()
        scheduler.advanceTo(300)
        token = nil
        completable = nil
        XCTAssertNil(weakToken, "the finished first completable is kept while the second runs")
        subscription?.dispose()
    }

    func testZipCompletesWhenAllHaveCompleted() {
        let xs = cold([.completed(10)])
        let ys = cold([.completed(30)])
        let zs = cold([.completed(20)])
        let res = scheduler.start {
            Completable.zip(xs.asCompletable(), ys.asCompletable(), zs.asCompletable()).asObservable()
        }
        XCTAssertEqual(res.events, [.completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 230)])
        XCTAssertEqual(zs.subscriptions, [Subscription(200, 220)])
    }

    func testZipFailsOnTheFirstErrorAndDisposesTheOthers() {
        let xs = cold([.completed(10)])
        let ys = cold([.error(20, TestError.boom)])
        let zs = cold([.completed(50)])
        let res = scheduler.start { Completable.zip([xs, ys, zs].map { $0.asCompletable() }).asObservable() }
        XCTAssertEqual(res.events, [.error(220, TestError.boom)])
        XCTAssertEqual(zs.subscriptions, [Subscription(200, 220)])
    }

    func testZipAndMergeOfNothingCompleteAtOnce() {
        XCTAssertEqual(events(of: Completable.zip()), [.completed])
        XCTAssertEqual(events(of: Completable.zip([Completable]())), [.completed])
        XCTAssertEqual(events(of: Completable.merge()), [.completed])
        XCTAssertEqual(events(of: Completable.merge(Completable.empty(), .empty())), [.completed])
        XCTAssertEqual(events(of: Completable.merge([Completable.empty(), .error(TestError.other)])), [.error(TestError.other)])
    }

    func testZipDisposedDisposesEverySource() {
        let xs = cold([.completed(100)])
        let ys = cold([.completed(200)])
        let res = scheduler.start(disposed: 250) { Completable.zip(xs.asCompletable(), ys.asCompletable()).asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 250)])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }

    func testCatchSwitchesToTheFallbackAtTheErrorTick() {
        let xs = hot([.error(210, TestError.boom)])
        let ys = cold([.completed(10)])
        nonisolated(unsafe) var caught: [Observed<Int>] = []
        let res = scheduler.start {
            xs.asCompletable().catch { error in
                caught.append(.error(error))
                return ys.asCompletable()
            }
            .asObservable()
        }
        XCTAssertEqual(res.events, [.completed(220)])
        XCTAssertEqual(caught, [.error(TestError.boom)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 220)])
    }

    func testCatchFailsWithTheFallbacksOrTheThrownErrorAndLeavesCompletionAlone() {
        XCTAssertEqual(events(of: Completable.error(TestError.boom).catch { _ in .error(TestError.other) }), [.error(TestError.other)])
        XCTAssertEqual(events(of: Completable.error(TestError.boom).catch { _ in throw TestError.other }), [.error(TestError.other)])
        nonisolated(unsafe) var handlerCalls = 0
        XCTAssertEqual(events(of: Completable.empty().catch { _ in
            handlerCalls += 1
            return .empty()
        }), [.completed])
        XCTAssertEqual(handlerCalls, 0)
    }

    func testDoRunsTheHandlersInOrderAroundCompletion() {
        let scheduler = self.scheduler
        nonisolated(unsafe) var log: [String] = []
        let xs = hot([.completed(210)])
        let res = scheduler.start {
            xs.asCompletable().do(
                onError: { _ in log.append("onError") },
                onCompleted: { log.append("onCompleted") },
                afterCompleted: { log.append("afterCompleted") },
                onSubscribe: { log.append("onSubscribe \(scheduler.clock)") },
                onSubscribed: { log.append("onSubscribed") },
                onDispose: { log.append("onDispose \(scheduler.clock)") }
            )
            .asObservable()
        }
        XCTAssertEqual(res.events, [.completed(210)])
        XCTAssertEqual(log, ["onSubscribe 200", "onSubscribed", "onCompleted", "afterCompleted", "onDispose 210"])
    }

    func testDoSeesTheErrorAndAThrowingHandlerReplacesTheEvent() {
        nonisolated(unsafe) var log: [String] = []
        XCTAssertEqual(events(of: Completable.error(TestError.boom).do(
            onError: { log.append("onError \($0)") },
            afterError: { log.append("afterError \($0)") }
        )), [.error(TestError.boom)])
        XCTAssertEqual(log, ["onError boom", "afterError boom"])
        XCTAssertEqual(events(of: Completable.error(TestError.boom).do(onError: { _ in throw TestError.other })), [.error(TestError.other)])
        XCTAssertEqual(events(of: Completable.empty().do(onCompleted: { throw TestError.other })), [.error(TestError.other)])
        XCTAssertEqual(events(of: Completable.empty().do(afterCompleted: { throw TestError.other })), [.completed])
    }

    func testDoOnDisposeRunsOnceWhenDisposedBeforeTheEvent() {
        let scheduler = self.scheduler
        nonisolated(unsafe) var disposedAt: [TestTime] = []
        let xs = hot([.completed(400)])
        let res = scheduler.start(disposed: 300) {
            xs.asCompletable().do(onDispose: { disposedAt.append(scheduler.clock) }).asObservable()
        }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(disposedAt, [300])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testDeferredBuildsTheCompletableAtEachSubscription() {
        nonisolated(unsafe) var factoryCalls = 0
        let completable = Completable.deferred {
            factoryCalls += 1
            return factoryCalls == 1 ? .empty() : .error(TestError.boom)
        }
        XCTAssertEqual(factoryCalls, 0)
        XCTAssertEqual(events(of: completable), [.completed])
        XCTAssertEqual(events(of: completable), [.error(TestError.boom)])
        XCTAssertEqual(events(of: Completable.deferred { throw TestError.other }), [.error(TestError.other)])
    }

    func testRetryResubscribesUntilTheAttemptsRunOut() {
        let xs = cold([.error(10, TestError.boom)])
        let res = scheduler.start { xs.asCompletable().retry(2).asObservable() }
        XCTAssertEqual(res.events, [.error(220, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210), Subscription(210, 220)])

        nonisolated(unsafe) var attempts = 0
        let flaky = Completable.deferred {
            attempts += 1
            return attempts < 3 ? .error(TestError.boom) : .empty()
        }
        XCTAssertEqual(events(of: flaky.retry(3)), [.completed])
        attempts = 0
        XCTAssertEqual(events(of: flaky.retry()), [.completed])
        XCTAssertEqual(events(of: flaky.retry(0)), [.completed])
        XCTAssertEqual(events(of: flaky.retry(-1)), [.error(RxError.argumentOutOfRange)])
    }

    func testRetryWhenResubscribesWhenTheTriggerFires() {
        let scheduler = self.scheduler
        let xs = cold([.error(10, TestError.boom)])
        let res = scheduler.start {
            xs.asCompletable().retry { (errors: Observable<Error>) in
                errors.enumerated().map { attempt, error -> Int in
                    if attempt >= 1 { throw error }
                    return attempt
                }
                .delay(.seconds(5), scheduler: scheduler)
            }
            .asObservable()
        }
        XCTAssertEqual(res.events, [.error(225, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210), Subscription(215, 225)])

        nonisolated(unsafe) var attempts = 0
        let flaky = Completable.deferred {
            attempts += 1
            return attempts < 2 ? .error(TestError.boom) : .empty()
        }
        XCTAssertEqual(events(of: flaky.retry { (errors: Observable<TestError>) in errors }), [.completed])
        attempts = 0
        XCTAssertEqual(events(of: flaky.retryWhen { (errors: Observable<Error>) in errors }), [.completed])
        attempts = 0
        XCTAssertEqual(events(of: flaky.retryWhen { (errors: Observable<TestError>) in errors }), [.completed])
    }

    func testDebugPassesTheEventThrough() {
        XCTAssertEqual(events(of: Completable.empty().debug("completable")), [.completed])
    }
}
