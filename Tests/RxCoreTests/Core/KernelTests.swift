import Foundation
import RxCore
import RxTesting
import XCTest

final class KernelTests: RxTestCase {
    func testMapAndFilterTransformInOrderThenComplete() {
        nonisolated(unsafe) var received: [String] = []
        nonisolated(unsafe) var completed = 0
        let subscription = Observable<Int>.create { observer in
            (1...6).forEach(observer.onNext)
            observer.onCompleted()
            return Disposables.create()
        }
        .filter { $0.isMultiple(of: 2) }
        .map { "#\($0)" }
        .subscribe(onNext: { received.append($0) }, onCompleted: { completed += 1 })
        subscription.dispose()
        XCTAssertEqual(received, ["#2", "#4", "#6"])
        XCTAssertEqual(completed, 1)
    }

    func testEventsAfterATerminalEventAreDropped() {
        nonisolated(unsafe) var events: [String] = []
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onCompleted()
            observer.onNext(2)
            observer.onError(TestError.boom)
            observer.onCompleted()
            return Disposables.create()
        }
        .map { $0 }
        .subscribe(
            onNext: { events.append("next \($0)") },
            onError: { _ in events.append("error") },
            onCompleted: { events.append("completed") },
            onDisposed: { events.append("disposed") }
        )
        subscription.dispose()
        XCTAssertEqual(events, ["next 1", "completed", "disposed"])
    }

    func testNothingIsDeliveredAfterDispose() {
        nonisolated(unsafe) var captured: AnyObserver<Int>?
        nonisolated(unsafe) var received: [Int] = []
        nonisolated(unsafe) var disposedCount = 0
        nonisolated(unsafe) var upstreamDisposed = 0
        let subscription = Observable<Int>.create { observer in
            captured = observer
            return Disposables.create { upstreamDisposed += 1 }
        }
        .map { $0 * 10 }
        .subscribe(onNext: { received.append($0) }, onDisposed: { disposedCount += 1 })

        captured?.onNext(1)
        subscription.dispose()
        subscription.dispose()
        captured?.onNext(2)
        captured?.onCompleted()
        captured = nil

        XCTAssertEqual(received, [10])
        XCTAssertEqual(disposedCount, 1)
        XCTAssertEqual(upstreamDisposed, 1)
    }

    func testAThrowingMapTerminatesWithTheThrownErrorAndDisposesUpstream() {
        nonisolated(unsafe) var upstreamDisposed = false
        nonisolated(unsafe) var failure: Error?
        let subscription = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            return Disposables.create { upstreamDisposed = true }
        }
        .map { value -> Int in
            if value == 2 { throw TestError.boom }
            return value
        }
        .subscribe(onError: { failure = $0 })
        XCTAssertEqual(failure as? TestError, .boom)
        XCTAssertTrue(upstreamDisposed)
        subscription.dispose()
    }

    func testDisposeIsIdempotentAndThreadSafe() {
        for _ in 0..<200 {
            nonisolated(unsafe) var upstreamDisposals = 0
            let lock = NSLock()
            let subscription = Observable<Int>.never()
                .map { $0 }
                .subscribe(onDisposed: { lock.lock(); upstreamDisposals += 1; lock.unlock() })
            DispatchQueue.concurrentPerform(iterations: 8) { _ in subscription.dispose() }
            XCTAssertEqual(upstreamDisposals, 1)
        }
    }

    func testSingleFromCreateDeliversSuccessOnce() {
        nonisolated(unsafe) var results: [Int] = []
        nonisolated(unsafe) var disposed = 0
        let subscription = Single<Int>.create { single in
            single(.success(5))
            single(.success(6))
            return Disposables.create()
        }
        .subscribe(onSuccess: { results.append($0) }, onDisposed: { disposed += 1 })
        subscription.dispose()
        XCTAssertEqual(results, [5])
        XCTAssertEqual(disposed, 1)
    }

    func testAsSingleRejectsEmptyAndMultipleElementSequences() {
        nonisolated(unsafe) var errors: [RxError] = []
        _ = Observable<Int>.empty().asSingle().subscribe(onFailure: { errors.append($0 as! RxError) })
        _ = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            return Disposables.create()
        }
        .asSingle()
        .subscribe(onFailure: { errors.append($0 as! RxError) })
        XCTAssertEqual(errors, [.noElements, .moreThanOneElement])
    }
}

enum TestError: Error, Equatable {
    case boom
    case other
}
