import RxCore
import RxTesting
import XCTest

/// The handle `subscribe(...)` returns: owns the subscriber while it lives, lets go when it ends.
final class SubscriptionHandleTests: RxTestCase {
    func testAHandleDroppedWithoutDisposeLeavesTheSubscriptionLiveUntilItsSourceEnds() {
        let subject = PublishSubject<Int>()
        nonisolated(unsafe) var received: [Int] = []
        let before = Resources.total
        _ = subject.map { $0 + 1 }.subscribe(onNext: { received.append($0) })
        subject.onNext(1)
        XCTAssertEqual(received, [2], "the subscription lives on without its handle, as in RxSwift")
        XCTAssertGreaterThan(Resources.total, before)
        subject.onCompleted()
        XCTAssertEqual(Resources.total, before, "the ended subscription let go of everything, handle included")
    }

    func testAKeptHandleKeepsASilentSubscriptionUntilDispose() {
        nonisolated(unsafe) var disposed = 0
        let handle = Observable<Int>.never().subscribe(onDisposed: { disposed += 1 })
        XCTAssertEqual(disposed, 0)
        XCTAssertFalse((handle as? Cancelable)?.isDisposed ?? true)
        handle.dispose()
        handle.dispose()
        XCTAssertEqual(disposed, 1)
        XCTAssertTrue((handle as? Cancelable)?.isDisposed ?? false)
    }

    func testTheHandleReportsDisposedOnceTheSequenceEnds() {
        let handle = Observable.just(1).subscribe()
        XCTAssertTrue((handle as? Cancelable)?.isDisposed ?? false)
        let singleHandle = Single.just(1).subscribe()
        XCTAssertTrue((singleHandle as? Cancelable)?.isDisposed ?? false)
    }

    func testDisposeRacingCompletionCallsOnDisposedOnce() {
        for _ in 0..<300 {
            let subject = PublishSubject<Int>()
            let count = LockedBox(0)
            let handle = subject.subscribe(onDisposed: { count.mutate { $0 += 1 } })
            DispatchQueue.concurrentPerform(iterations: 4) { index in
                if index == 0 { subject.onCompleted() } else { handle.dispose() }
            }
            XCTAssertEqual(count.value, 1)
        }
    }
}
