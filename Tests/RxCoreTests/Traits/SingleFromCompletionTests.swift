@_spi(RxNetworkKitInternals) import RxCore
import RxTesting
import XCTest

/// `Single.fromCompletion`, the SPI RxHTTP's calls are bridged with: one outcome, straight to the
/// subscriber; nothing after it or after dispose; the work cancelled by dispose.
final class SingleFromCompletionTests: RxTestCase {
    /// A callback API's work: keeps the completion until the test answers, counts cancels.
    private final class Work: @unchecked Sendable {
        // @unchecked Sendable: touched only from the test's thread.
        var completion: ((Result<Int, TestError>) -> Void)?
        var starts = 0
        var cancels = 0

        func single() -> Single<Int> {
            Single.fromCompletion { [self] (completion: @escaping (Result<Int, TestError>) -> Void) in
                starts += 1
                self.completion = completion
                return Disposables.create { [self] in cancels += 1 }
            }
        }
    }

    func testASuccessIsTheElementThenCompletion() {
        let work = Work()
        let observer = Recorder<Int>()
        let subscription = observer.subscribe(work.single())
        XCTAssertEqual(work.starts, 1)
        work.completion?(.success(7))
        XCTAssertEqual(observer.events, [.next(7), .completed])
        subscription.dispose()
    }

    func testAFailureIsTheErrorWithItsOwnType() {
        let work = Work()
        let failed = expectation(description: "failed")
        let subscription = work.single().subscribe(onSuccess: { _ in XCTFail("succeeded") }, onFailure: { error in
            XCTAssertEqual(error as? TestError, .boom)
            failed.fulfill()
        })
        work.completion?(.failure(.boom))
        wait(for: [failed], timeout: 1)
        subscription.dispose()
    }

    func testOnlyTheFirstOutcomeCountsAndTheWorkIsReleasedAfterIt() {
        let work = Work()
        let observer = Recorder<Int>()
        let subscription = observer.subscribe(work.single())
        work.completion?(.success(1))
        work.completion?(.success(2))
        work.completion?(.failure(.boom))
        XCTAssertEqual(observer.events, [.next(1), .completed])
        // The outcome ended the subscription: the work's disposable was let go (a no-op for a
        // finished call).
        XCTAssertEqual(work.cancels, 1)
        subscription.dispose()
        XCTAssertEqual(work.cancels, 1)
    }

    func testDisposingCancelsTheWorkAndDropsALateOutcome() {
        let work = Work()
        let observer = Recorder<Int>()
        let subscription = observer.subscribe(work.single())
        subscription.dispose()
        XCTAssertEqual(work.cancels, 1)
        work.completion?(.success(3))
        XCTAssertEqual(observer.events, [])
        XCTAssertEqual(observer.disposed, 1)
    }

    func testEachSubscriptionStartsTheWorkAnew() {
        let work = Work()
        let single = work.single()
        XCTAssertEqual(work.starts, 0, "cold: nothing before a subscription")
        let first = Recorder<Int>()
        _ = first.subscribe(single)
        work.completion?(.success(1))
        let second = Recorder<Int>()
        _ = second.subscribe(single)
        work.completion?(.success(2))
        XCTAssertEqual(work.starts, 2)
        XCTAssertEqual(first.events, [.next(1), .completed])
        XCTAssertEqual(second.events, [.next(2), .completed])
    }

    func testAnOutcomeDuringStartIsDelivered() {
        let observer = Recorder<Int>()
        let single = Single<Int>.fromCompletion { (completion: @escaping (Result<Int, TestError>) -> Void) in
            completion(.success(5))
            return Disposables.create()
        }
        _ = observer.subscribe(single)
        XCTAssertEqual(observer.events, [.next(5), .completed])
    }
}
