import RxCore
import RxTesting
import XCTest

/// `Observable.using` makes a resource per subscription, builds the sequence from it, and disposes
/// it (after the sequence's subscription) when the subscription ends, however it ends.
final class UsingTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testTheResourceLivesFromSubscriptionUntilCompletion() {
        let log = DisposeLog()
        let xs = scheduler.createColdObservable([.next(100, 7), .completed(200)])
        let res = scheduler.start { [scheduler] in
            Observable.using({ TickResource(scheduler: scheduler, log: log) }, observableFactory: { resource in
                log.record("built from \(resource.name)")
                return xs.asObservable()
            })
        }
        XCTAssertEqual(res.events, [.next(300, 7), .completed(400)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(log.names, ["resource created at 200", "built from resource", "resource disposed at 400"])
    }

    func testTheResourceIsDisposedAfterAnError() {
        let log = DisposeLog()
        let xs = scheduler.createColdObservable([.next(100, 7), .error(200, TestError.boom)])
        let res = scheduler.start { [scheduler] in
            Observable.using({ TickResource(scheduler: scheduler, log: log) }, observableFactory: { _ in xs.asObservable() })
        }
        XCTAssertEqual(res.events, [.next(300, 7), .error(400, TestError.boom)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 400)])
        XCTAssertEqual(log.names, ["resource created at 200", "resource disposed at 400"])
    }

    func testTheResourceIsDisposedWhenTheSubscriptionIs() {
        let log = DisposeLog()
        let xs = scheduler.createColdObservable([.next(100, 7), .next(1_000, 8)])
        let res = scheduler.start { [scheduler] in
            Observable.using({ TickResource(scheduler: scheduler, log: log) }, observableFactory: { _ in xs.asObservable() })
        }
        XCTAssertEqual(res.events, [.next(300, 7)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 1_000)])
        XCTAssertEqual(log.names, ["resource created at 200", "resource disposed at 1000"])
    }

    func testAResourceFactoryErrorFailsTheSubscriptionWithoutBuildingTheSequence() {
        let log = DisposeLog()
        let res = scheduler.start {
            Observable<Int>.using({ () throws -> BooleanDisposable in throw TestError.boom }, observableFactory: { _ in
                log.record("built")
                return .never()
            })
        }
        XCTAssertEqual(res.events, [.error(200, TestError.boom)])
        XCTAssertEqual(log.count, 0, "the sequence was built without a resource")
    }

    func testAnObservableFactoryErrorFailsTheSubscriptionThenDisposesTheResource() {
        let log = DisposeLog()
        let subscription = Observable<Int>.using({ [scheduler] in TickResource(scheduler: scheduler, log: log) }, observableFactory: { _ in
            throw TestError.boom
        })
        .subscribe(onError: { log.record("subscriber got \($0)") })
        XCTAssertEqual(log.names, ["resource created at 0", "subscriber got boom", "resource disposed at 0"])
        subscription.dispose()
        XCTAssertEqual(log.count, 3, "the resource was disposed twice")
    }

    func testTheSequencesSubscriptionIsDisposedBeforeTheResource() {
        let log = DisposeLog()
        let subscription = Observable<Int>.using({ ValueDisposable("resource", log: log) }, observableFactory: { _ in
            Observable<Int>.never().do(onDispose: { log.record("subscription") })
        })
        .subscribe()
        XCTAssertEqual(log.count, 0)
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(log.names, ["subscription", "resource"])
    }

    func testEachSubscriptionMakesAndDisposesItsOwnResource() {
        let log = DisposeLog()
        let counter = DisposeLog()
        let shared = Observable<Int>.using({ () -> ValueDisposable in
            counter.record("made")
            return ValueDisposable("resource \(counter.count)", log: log)
        }, observableFactory: { _ in .just(counter.count) })
        XCTAssertEqual(collect(shared), [.next(1), .completed])
        XCTAssertEqual(collect(shared), [.next(2), .completed])
        XCTAssertEqual(log.names, ["resource 1", "resource 2"], "a synchronous source released its resource before subscribe returned")
    }

    func testConformance() {
        assertOperatorBasics { source in
            Observable.using({ BooleanDisposable() }, observableFactory: { _ in source })
        }
    }
}

/// A resource that records, with the scheduler's clock, when it was made and each time it is
/// disposed.
private final class TickResource: Disposable {
    let name = "resource"
    private let scheduler: TestScheduler
    private let log: DisposeLog

    init(scheduler: TestScheduler, log: DisposeLog) {
        self.scheduler = scheduler
        self.log = log
        log.record("\(name) created at \(scheduler.clock)")
    }

    func dispose() {
        log.record("\(name) disposed at \(scheduler.clock)")
    }
}
