import RxCore
import RxTesting
import XCTest

final class CompletableAndThenTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    private func first(_ events: [Recorded<Event<Never>>]) -> TestableObservable<Never> {
        scheduler.createHotObservable(events)
    }

    func testAndThenMaybeSubscribesTheMaybeWhenTheFirstCompletes() {
        let x1 = first([.completed(210)])
        let x2 = scheduler.createHotObservable([.next(290, 1), .completed(290)])
        let res = scheduler.start { x1.asCompletable().andThen(x2.asMaybe()).asObservable() }
        XCTAssertEqual(res.events, [.next(290, 1), .completed(290)])
        XCTAssertEqual(x1.subscriptions, [Subscription(200, 210)])
        XCTAssertEqual(x2.subscriptions, [Subscription(210, 290)])
    }

    func testAndThenMaybePassesAnEmptyCompletionOrAnError() {
        let x1 = first([.completed(210)])
        let empty = scheduler.createHotObservable([.completed(290, Int.self)])
        let res = scheduler.start { x1.asCompletable().andThen(empty.asMaybe()).asObservable() }
        XCTAssertEqual(res.events, [.completed(290)])

        nonisolated(unsafe) var events: [MaybeEvent<Int>] = []
        _ = Completable.empty().andThen(Maybe<Int>.error(TestError.boom)).subscribe { events.append($0) }
        XCTAssertEqual(events, [.error(TestError.boom)])
    }

    func testAndThenMaybeSkipsTheMaybeAfterAnError() {
        let x1 = first([.error(210, TestError.boom)])
        let x2 = scheduler.createHotObservable([.next(290, 1), .completed(290)])
        let res = scheduler.start { x1.asCompletable().andThen(x2.asMaybe()).asObservable() }
        XCTAssertEqual(res.events, [.error(210, TestError.boom)])
        XCTAssertEqual(x2.subscriptions, [])
    }

    func testAndThenMaybeDisposedWhileTheMaybeRunsDisposesIt() {
        let x2 = scheduler.createColdObservable([.next(100, 1), .completed(100)])
        let res = scheduler.start(disposed: 250) { Completable.empty().andThen(x2.asMaybe()).asObservable() }
        XCTAssertEqual(res.events, [])
        XCTAssertEqual(x2.subscriptions, [Subscription(200, 250)])
    }

    func testAndThenReleasesTheFirstCompletableOnceItHasTerminated() {
        final class Token: Sendable {}
        for error in [nil, TestError.boom] {
            let at = scheduler.clock + 10
            let terminal: Recorded<Event<Never>> = error.map { .error(at, $0) } ?? .completed(at)
            let x = first([terminal])
            var token: Token? = Token()
            weak let weakToken = token
            var completable: Completable? = x.asCompletable().do(onCompleted: { [token] in _ = token })
            let subscription = completable?.andThen(Completable.never()).subscribe()
            scheduler.advanceTo(scheduler.clock + 100)
            token = nil
            completable = nil
            XCTAssertNil(weakToken, "the first completable is kept after \(terminal.value)")
            subscription?.dispose()
        }
    }
}
