import RxCore
import RxTesting
import XCTest

/// `subscribe(with:)` hands a weakly held object to each handler, and ignores events once it is gone.
final class SubscribeWithTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    /// The object the handlers receive; records what they saw, with the tick.
    // @unchecked Sendable: used from the test's one thread (virtual time); `subscribe(with:)`
    // requires a Sendable object because its handlers may run elsewhere.
    private final class Owner: @unchecked Sendable {
        let scheduler: TestScheduler
        var log: [String] = []

        init(scheduler: TestScheduler) {
            self.scheduler = scheduler
        }

        func record(_ text: String) {
            log.append("\(scheduler.clock) \(text)")
        }
    }

    func testHandlersReceiveTheObjectWithEveryEvent() {
        let owner = Owner(scheduler: scheduler)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let subscription = xs.subscribe(
            with: owner,
            onNext: { $0.record("next \($1)") },
            onError: { owner, _ in owner.record("error") },
            onCompleted: { $0.record("completed") },
            onDisposed: { $0.record("disposed") }
        )
        scheduler.start()
        XCTAssertEqual(owner.log, ["210 next 1", "220 next 2", "230 completed", "230 disposed"])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 230)])
        subscription.dispose()
    }

    func testTheErrorHandlerReceivesTheObjectAndTheError() {
        let owner = Owner(scheduler: scheduler)
        let xs = scheduler.createHotObservable([.next(210, 1), .error(220, TestError.boom)])
        let subscription = xs.subscribe(with: owner, onError: { $0.record("error \($1)") })
        scheduler.start()
        XCTAssertEqual(owner.log, ["220 error boom"])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 220)])
        subscription.dispose()
    }

    func testDoesNotRetainTheObject() {
        var owner: Owner? = Owner(scheduler: scheduler)
        weak let weakOwner = owner
        let xs = scheduler.createHotObservable([.next(210, 1)] as [Recorded<Event<Int>>])
        let subscription = xs.subscribe(with: owner!, onNext: { $0.record("next \($1)") })
        owner = nil
        XCTAssertNil(weakOwner, "the subscription kept the object alive")
        scheduler.start()
        subscription.dispose()
    }

    func testEventsAfterTheObjectIsGoneAreIgnoredAndTheSubscriptionGoesOn() {
        nonisolated(unsafe) var log: [String] = []
        var owner: Owner? = Owner(scheduler: scheduler)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let subscription = xs.subscribe(
            with: owner!,
            onNext: { owner, element in
                owner.record("next \(element)")
                log = owner.log
            },
            onCompleted: { _ in log.append("completed") },
            onDisposed: { _ in log.append("disposed") }
        )
        scheduler.scheduleAt(215) { owner = nil }
        scheduler.start()
        XCTAssertEqual(log, ["210 next 1"])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 230)], "the source still completes the subscription")
        subscription.dispose()
    }

    func testDisposingRunsOnDisposedWithTheObjectAndStopsTheHandlers() {
        let owner = Owner(scheduler: scheduler)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(260, 2)])
        let subscription = xs.subscribe(
            with: owner,
            onNext: { $0.record("next \($1)") },
            onDisposed: { $0.record("disposed") }
        )
        scheduler.scheduleAt(250) { subscription.dispose() }
        scheduler.start()
        XCTAssertEqual(owner.log, ["210 next 1", "250 disposed"])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 250)])
    }

    func testSingleHandlersReceiveTheObject() {
        let owner = Owner(scheduler: scheduler)
        let success = Single.just(5).delay(.seconds(10), scheduler: scheduler)
            .subscribe(with: owner, onSuccess: { $0.record("success \($1)") }, onDisposed: { $0.record("disposed") })
        let failure = Single<Int>.error(TestError.other)
            .subscribe(with: owner, onFailure: { $0.record("failure \($1)") })
        scheduler.start()
        XCTAssertEqual(owner.log, ["0 failure other", "10 success 5", "10 disposed"])
        success.dispose()
        failure.dispose()
    }

    func testSingleIgnoresTheResultOnceTheObjectIsGone() {
        var owner: Owner? = Owner(scheduler: scheduler)
        nonisolated(unsafe) var delivered = 0
        let subscription = Single.just(5).delay(.seconds(10), scheduler: scheduler)
            .subscribe(with: owner!, onSuccess: { _, _ in delivered += 1 }, onDisposed: { _ in delivered += 1 })
        owner = nil
        scheduler.start()
        XCTAssertEqual(delivered, 0)
        subscription.dispose()
    }

    func testCompletableHandlersReceiveTheObject() {
        let owner = Owner(scheduler: scheduler)
        let xs = scheduler.createHotObservable([.completed(230, Never.self)])
        let ys = scheduler.createHotObservable([.error(240, TestError.boom, Never.self)])
        let completed = xs.asCompletable()
            .subscribe(with: owner, onCompleted: { $0.record("completed") }, onDisposed: { $0.record("disposed") })
        let failed = ys.asCompletable().subscribe(with: owner, onError: { $0.record("error \($1)") })
        scheduler.start()
        XCTAssertEqual(owner.log, ["230 completed", "230 disposed", "240 error boom"])
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 230)])
        XCTAssertEqual(ys.subscriptions, [Subscription(0, 240)])
        completed.dispose()
        failed.dispose()
    }

    func testCompletableIgnoresTheEventOnceTheObjectIsGone() {
        var owner: Owner? = Owner(scheduler: scheduler)
        nonisolated(unsafe) var delivered = 0
        let xs = scheduler.createHotObservable([.completed(230, Never.self)])
        let subscription = xs.asCompletable()
            .subscribe(with: owner!, onCompleted: { _ in delivered += 1 }, onError: { _, _ in delivered += 1 })
        owner = nil
        scheduler.start()
        XCTAssertEqual(delivered, 0)
        XCTAssertEqual(xs.subscriptions, [Subscription(0, 230)])
        subscription.dispose()
    }
}
