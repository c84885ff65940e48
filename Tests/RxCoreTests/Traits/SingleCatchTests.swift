import RxCore
import RxTesting
import XCTest

final class SingleCatchTests: RxTestCase {
    func testCatchSwitchesToTheFallbackSingle() {
        nonisolated(unsafe) var caught: [Observed<Int>] = []
        let single = Single<Int>.error(TestError.boom).catch { error in
            caught.append(.error(error))
            return .just(9)
        }
        XCTAssertEqual(collect(single), [.next(9)])
        XCTAssertEqual(caught, [.error(TestError.boom)])
        XCTAssertEqual(collect(Single.just(1).catch { _ in .just(9) }), [.next(1)])
    }

    func testCatchFailsWithTheFallbacksOrTheThrownError() {
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).catch { _ in .error(TestError.other) }), [.error(TestError.other)])
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).catch { _ in throw TestError.other }), [.error(TestError.other)])
    }

    func testCatchAndReturnReplacesTheFailure() {
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).catchAndReturn(0)), [.next(0)])
        XCTAssertEqual(collect(Single.just(5).catchAndReturn(0)), [.next(5)])
    }

    func testDisposingWhileOnTheFallbackDisposesIt() {
        nonisolated(unsafe) var cancelled = 0
        let fallback = Single<Int>.create { _ in Disposables.create { cancelled += 1 } }
        let subscription = Single<Int>.error(TestError.boom).catch { _ in fallback }.subscribe()
        XCTAssertEqual(cancelled, 0)
        subscription.dispose()
        XCTAssertEqual(cancelled, 1)
    }
}
