import RxCore
import RxTesting
import XCTest

final class SingleCreationTests: RxTestCase {
    func testJustSucceedsAndErrorFails() {
        XCTAssertEqual(collect(Single.just(3)), [.next(3)])
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom)), [.error(TestError.boom)])
    }

    func testDeferredBuildsTheSingleAtEachSubscription() {
        nonisolated(unsafe) var calls = 0
        let single = Single<Int>.deferred {
            calls += 1
            return .just(calls)
        }
        XCTAssertEqual(calls, 0)
        XCTAssertEqual(collect(single), [.next(1)])
        XCTAssertEqual(collect(single), [.next(2)])
    }

    func testDeferredTurnsAThrownErrorIntoFailure() {
        XCTAssertEqual(collect(Single<Int>.deferred { throw TestError.boom }), [.error(TestError.boom)])
    }

    func testMapTransformsTheSuccessAndPassesFailuresThrough() {
        XCTAssertEqual(collect(Single.just(3).map { "\($0 * 2)" }), [.next("6")])
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).map { $0 * 2 }), [.error(TestError.boom)])
        XCTAssertEqual(collect(Single.just(2).map { try passOrThrowAt2($0) }), [.error(TestError.boom)])
    }

    func testDisposingAPendingMappedSingleDisposesTheWork() {
        nonisolated(unsafe) var cancelled = 0
        nonisolated(unsafe) var results: [Int] = []
        let subscription = Single<Int>.create { _ in Disposables.create { cancelled += 1 } }
            .map { $0 + 1 }
            .subscribe(onSuccess: { results.append($0) })
        subscription.dispose()
        XCTAssertEqual(cancelled, 1)
        XCTAssertEqual(results, [])
    }
}
