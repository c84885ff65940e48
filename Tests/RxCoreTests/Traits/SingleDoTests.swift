import RxCore
import RxTesting
import XCTest

final class SingleDoTests: RxTestCase {
    func testHandlersRunAroundTheSuccess() {
        nonisolated(unsafe) var log: [String] = []
        let subscription = Single.just(1).do(
            onSuccess: { log.append("onSuccess \($0)") },
            afterSuccess: { log.append("afterSuccess \($0)") },
            onError: { _ in log.append("onError") },
            onSubscribe: { log.append("onSubscribe") },
            onSubscribed: { log.append("onSubscribed") },
            onDispose: { log.append("onDispose") }
        )
        .subscribe(onSuccess: { log.append("success \($0)") })
        subscription.dispose()
        XCTAssertEqual(log.first, "onSubscribe")
        XCTAssertEqual(Array(log[1...3]), ["onSuccess 1", "success 1", "afterSuccess 1"])
        XCTAssertEqual(log.filter { $0 == "onDispose" }.count, 1)
        XCTAssertFalse(log.contains("onError"))
    }

    func testHandlersRunAroundTheFailure() {
        nonisolated(unsafe) var log: [String] = []
        let subscription = Single<Int>.error(TestError.boom).do(
            onSuccess: { _ in log.append("onSuccess") },
            onError: { log.append("onError \($0)") },
            afterError: { log.append("afterError \($0)") }
        )
        .subscribe(onFailure: { log.append("failure \($0)") })
        subscription.dispose()
        XCTAssertEqual(log, ["onError boom", "failure boom", "afterError boom"])
    }

    func testAThrowingOnSuccessFailsTheSingle() {
        XCTAssertEqual(collect(Single.just(1).do(onSuccess: { _ in throw TestError.other })), [.error(TestError.other)])
        XCTAssertEqual(collect(Single<Int>.error(TestError.boom).do(onError: { _ in throw TestError.other })), [.error(TestError.other)])
    }

    func testAThrowingAfterSuccessIsDroppedEvenSeenAsAnObservable() {
        let single = Single.just(1).do(afterSuccess: { _ in throw TestError.other })
        XCTAssertEqual(collect(single), [.next(1)])
        XCTAssertEqual(collect(single.asObservable()), [.next(1), .completed])
    }

    func testOnDisposeRunsOnDisposeOfAPendingSingle() {
        nonisolated(unsafe) var disposals = 0
        let subscription = Single<Int>.create { _ in Disposables.create() }
            .do(onDispose: { disposals += 1 })
            .subscribe()
        XCTAssertEqual(disposals, 0)
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(disposals, 1)
    }
}
