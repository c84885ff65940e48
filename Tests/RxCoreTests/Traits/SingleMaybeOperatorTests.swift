import RxCore
import RxTesting
import XCTest

final class SingleMaybeOperatorTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    func testFilterTurnsARejectedElementIntoAnEmptyMaybe() {
        XCTAssertEqual(collect(Single.just(4).filter { $0 > 3 }), [.next(4), .completed])
        XCTAssertEqual(collect(Single.just(2).filter { $0 > 3 }), [.completed])
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).filter { $0 > 3 }), [.error(TestError.boom)])
        XCTAssertEqual(collect(Single.just(2).filter { _ in throw TestError.other }), [.error(TestError.other)])
    }

    func testCompactMapTurnsANilResultIntoAnEmptyMaybe() {
        XCTAssertEqual(collect(Single.just("7").compactMap(Int.init)), [.next(7), .completed])
        XCTAssertEqual(collect(Single.just("x").compactMap(Int.init)), [.completed])
        XCTAssertEqual(collect(Single<String>.error(TestError.boom).compactMap(Int.init)), [.error(TestError.boom)])
    }

    func testFlatMapMaybeChainsAMaybeAfterTheSuccess() {
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(210)])
        let ys = scheduler.createColdObservable([.completed(15, Int.self)])
        let res = scheduler.start { xs.asSingle().flatMapMaybe { _ in ys.asMaybe() }.asObservable() }
        XCTAssertEqual(res.events, [.completed(225)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 225)])

        XCTAssertEqual(collect(Single.just(2).flatMapMaybe { .just($0 * 3) }), [.next(6), .completed])
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).flatMapMaybe { .just($0) }), [.error(TestError.boom)])
        XCTAssertEqual(collect(Single.just(2).flatMapMaybe { _ -> Maybe<Int> in throw TestError.other }), [.error(TestError.other)])
    }

    func testFlatMapCompletableRunsTheCompletableAfterTheSuccess() {
        let xs = scheduler.createHotObservable([.next(210, 2), .completed(210)])
        let ys = scheduler.createColdObservable([.completed(15, Never.self)])
        nonisolated(unsafe) var selected: [Int] = []
        let res = scheduler.start {
            xs.asSingle().flatMapCompletable { element in
                selected.append(element)
                return ys.asCompletable()
            }
            .asObservable()
        }
        XCTAssertEqual(res.events, [.completed(225)])
        XCTAssertEqual(selected, [2])
        XCTAssertEqual(ys.subscriptions, [Subscription(210, 225)])

        nonisolated(unsafe) var events: [CompletableEvent] = []
        _ = Single<Int>.error(TestError.boom).flatMapCompletable { _ in .empty() }.subscribe { events.append($0) }
        _ = Single.just(1).flatMapCompletable { _ in .error(TestError.other) }.subscribe { events.append($0) }
        _ = Single.just(1).flatMapCompletable { _ in throw TestError.boom }.subscribe { events.append($0) }
        XCTAssertEqual(events, [.error(TestError.boom), .error(TestError.other), .error(TestError.boom)])
    }

    func testFlatMapCompletableDisposedWhileTheCompletableRunsDisposesIt() {
        let ys = scheduler.createColdObservable([.completed(100, Never.self)])
        let res = scheduler.start(disposed: 250) { Single.just(1).flatMapCompletable { _ in ys.asCompletable() }.asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(ys.subscriptions, [Subscription(200, 250)])
    }

    func testNeverDeliversNothingUntilDisposed() {
        nonisolated(unsafe) var delivered = 0
        nonisolated(unsafe) var disposed = 0
        let subscription = Single<Int>.never().subscribe(
            onSuccess: { _ in delivered += 1 },
            onFailure: { _ in delivered += 1 },
            onDisposed: { disposed += 1 }
        )
        XCTAssertEqual(delivered, 0)
        XCTAssertEqual(disposed, 0)
        subscription.dispose()
        XCTAssertEqual(disposed, 1)
    }
}
