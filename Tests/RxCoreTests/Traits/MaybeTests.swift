import RxCore
import RxTesting
import XCTest

final class MaybeTests: RxTestCase {
    func testSubscribeDeliversSuccessCompletionOrError() {
        nonisolated(unsafe) var events: [MaybeEvent<Int>] = []
        _ = Maybe.just(1).subscribe { events.append($0) }
        _ = Maybe<Int>.empty().subscribe { events.append($0) }
        _ = Maybe<Int>.error(TestError.boom).subscribe { events.append($0) }
        XCTAssertEqual(events, [.success(1), .completed, .error(TestError.boom)])
    }

    func testSubscribeWithHandlersCallsOneHandlerThenOnDisposed() {
        nonisolated(unsafe) var log: [String] = []
        let handlers = { (maybe: Maybe<Int>) in
            _ = maybe.subscribe(
                onSuccess: { log.append("success \($0)") },
                onError: { log.append("error \($0)") },
                onCompleted: { log.append("completed") },
                onDisposed: { log.append("disposed") }
            )
        }
        handlers(.just(2))
        handlers(.empty())
        handlers(.error(TestError.boom))
        XCTAssertEqual(log, ["success 2", "disposed", "completed", "disposed", "error boom", "disposed"])
    }

    func testCreateDeliversTheFirstEventThenDisposesAtThatTick() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        nonisolated(unsafe) var observer: Maybe<Int>.MaybeObserver?
        nonisolated(unsafe) var disposedAt: TestTime?
        scheduler.scheduleAt(201) { observer?(.success(1)) }
        scheduler.scheduleAt(202) { observer?(.success(2)) }
        scheduler.scheduleAt(203) { observer?(.error(TestError.boom)) }
        scheduler.scheduleAt(204) { observer?(.completed) }
        let res = scheduler.start {
            Maybe<Int>.create { maybe in
                observer = maybe
                return Disposables.create { disposedAt = scheduler.clock }
            }
            .asObservable()
        }
        XCTAssertEqual(res.events, [.next(201, 1), .completed(201)])
        XCTAssertEqual(disposedAt, 201)
        observer = nil
    }

    func testCreateCompletesEmptyOnceAndIgnoresLaterEvents() {
        let (events, disposedAt) = runCreate(sending: [(210, .completed), (220, .success(1)), (230, .error(TestError.boom))])
        XCTAssertEqual(events, [.completed(210)])
        XCTAssertEqual(disposedAt, 210)
    }

    func testCreateFailsOnceAndIgnoresLaterEvents() {
        let (events, disposedAt) = runCreate(sending: [(210, .error(TestError.boom)), (220, .success(1)), (230, .completed)])
        XCTAssertEqual(events, [.error(210, TestError.boom)])
        XCTAssertEqual(disposedAt, 210)
    }

    /// Subscribes to a `Maybe.create` at 200, sends `events` to its observer at their ticks, and
    /// returns what was recorded and when the work was disposed.
    private func runCreate(
        sending events: [(TestTime, MaybeEvent<Int>)]
    ) -> (events: [Recorded<Event<Int>>], disposedAt: TestTime?) {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        nonisolated(unsafe) var observer: Maybe<Int>.MaybeObserver?
        nonisolated(unsafe) var disposedAt: TestTime?
        for (time, event) in events {
            scheduler.scheduleAt(time) { observer?(event) }
        }
        let res = scheduler.start {
            Maybe<Int>.create { maybe in
                observer = maybe
                return Disposables.create { disposedAt = scheduler.clock }
            }
            .asObservable()
        }
        observer = nil
        return (res.events, disposedAt)
    }

    func testDisposingBeforeTheEventDisposesTheWorkAndDropsTheEvent() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        nonisolated(unsafe) var observer: Maybe<Int>.MaybeObserver?
        nonisolated(unsafe) var disposedAt: TestTime?
        nonisolated(unsafe) var disposedHandlerCalls = 0
        nonisolated(unsafe) var delivered: [MaybeEvent<Int>] = []
        var subscription: Disposable?
        scheduler.scheduleAt(201) {
            subscription = Maybe<Int>.create { maybe in
                observer = maybe
                return Disposables.create { disposedAt = scheduler.clock }
            }
            .subscribe(
                onSuccess: { delivered.append(.success($0)) },
                onError: { delivered.append(.error($0)) },
                onCompleted: { delivered.append(.completed) },
                onDisposed: { disposedHandlerCalls += 1 }
            )
        }
        scheduler.scheduleAt(202) { subscription?.dispose() }
        scheduler.scheduleAt(203) { observer?(.success(1)) }
        scheduler.start()
        XCTAssertEqual(delivered, [])
        XCTAssertEqual(disposedAt, 202)
        XCTAssertEqual(disposedHandlerCalls, 1)
        observer = nil
        subscription = nil
    }

    func testNeverDeliversNothingUntilDisposed() {
        nonisolated(unsafe) var events: [MaybeEvent<Int>] = []
        nonisolated(unsafe) var disposed = false
        let subscription = Maybe<Int>.never().subscribe(
            onSuccess: { events.append(.success($0)) },
            onCompleted: { events.append(.completed) },
            onDisposed: { disposed = true }
        )
        XCTAssertEqual(events, [])
        XCTAssertFalse(disposed)
        subscription.dispose()
        XCTAssertTrue(disposed)
    }

    func testDeferredBuildsTheMaybeAtEachSubscription() {
        nonisolated(unsafe) var factoryCalls = 0
        let maybe = Maybe<Int>.deferred {
            factoryCalls += 1
            return .just(factoryCalls)
        }
        XCTAssertEqual(factoryCalls, 0)
        XCTAssertEqual(collect(maybe), [.next(1), .completed])
        XCTAssertEqual(collect(maybe), [.next(2), .completed])
        XCTAssertEqual(collect(Maybe<Int>.deferred { throw TestError.boom }), [.error(TestError.boom)])
    }

    func testAsMaybePassesAtMostOneElementAtCompletion() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let one = scheduler.createHotObservable([.next(210, 1), .completed(220)])
        let res = scheduler.start { one.asMaybe().asObservable() }
        XCTAssertEqual(res.events, [.next(220, 1), .completed(220)])
        XCTAssertEqual(one.subscriptions, [Subscription(200, 220)])

        let none = scheduler.createHotObservable([.completed(1_230, Int.self)])
        let empty = scheduler.start(created: 1_100, subscribed: 1_200, disposed: 2_000) {
            none.asMaybe().asObservable()
        }
        XCTAssertEqual(empty.events, [.completed(1_230)])
    }

    func testAsMaybeFailsOnASecondElementAndDisposesTheSource() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let res = scheduler.start { xs.asMaybe().asObservable() }
        XCTAssertEqual(res.events, [.error(220, RxError.moreThanOneElement)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAsMaybePassesTheSourceError() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, TestError.boom)])
        let res = scheduler.start { xs.asMaybe().asObservable() }
        XCTAssertEqual(res.events, [.error(220, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testAsMaybeDisposedBeforeCompletionDisposesTheSource() {
        let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
        let xs = scheduler.createHotObservable([.next(210, 1), .completed(400)])
        let res = scheduler.start(disposed: 300) { xs.asMaybe().asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testConversionsToAndFromSingleAndCompletable() {
        XCTAssertEqual(collect(Single.just(3).asMaybe()), [.next(3), .completed])
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).asMaybe()), [.error(TestError.boom)])
        XCTAssertEqual(collect(Maybe.just(4).asMaybe()), [.next(4), .completed])

        nonisolated(unsafe) var events: [CompletableEvent] = []
        _ = Maybe.just(1).asCompletable().subscribe { events.append($0) }
        _ = Maybe<Int>.empty().asCompletable().subscribe { events.append($0) }
        _ = Maybe<Int>.error(TestError.other).asCompletable().subscribe { events.append($0) }
        XCTAssertEqual(events, [.completed, .completed, .error(TestError.other)])
    }
}
