import Foundation
import RxCore
import RxTesting
import XCTest

/// RxBlocking's names: `toBlocking(timeout:)` with `first`, `last`, `toArray`, `single`,
/// `materialize`, across threads.
final class BlockingObservableTests: RxTestCase {
    private let background = ConcurrentDispatchQueueScheduler(qos: .userInitiated)

    private struct Boom: Error, Equatable {}

    func testToArrayFirstAndLast() throws {
        let numbers = Observable.from([1, 2, 3]).observe(on: background)
        XCTAssertEqual(try numbers.toBlocking().toArray(), [1, 2, 3])
        XCTAssertEqual(try numbers.toBlocking().first(), 1)
        XCTAssertEqual(try numbers.toBlocking().last(), 3)
        XCTAssertNil(try Observable<Int>.empty().toBlocking().first())
    }

    func testSingleWantsExactlyOne() {
        XCTAssertEqual(try Single.just(7).observe(on: background).toBlocking().single(), 7)
        XCTAssertThrowsError(try Observable<Int>.empty().toBlocking().single()) { XCTAssertEqual($0 as? RxError, .noElements) }
        XCTAssertThrowsError(try Observable.from([1, 2]).toBlocking().single()) { XCTAssertEqual($0 as? RxError, .moreThanOneElement) }
    }

    func testErrorsAreRethrownAndMaterialized() throws {
        let failing = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(Boom())
            return Disposables.create()
        }
        XCTAssertThrowsError(try failing.toBlocking().toArray()) { XCTAssertEqual($0 as? Boom, Boom()) }
        guard case .failed(let elements, let error) = failing.toBlocking().materialize() else { return XCTFail("completed") }
        XCTAssertEqual(elements, [1])
        XCTAssertEqual(error as? Boom, Boom())
        guard case .completed(let all) = Observable.from([4, 5]).toBlocking().materialize() else { return XCTFail("failed") }
        XCTAssertEqual(all, [4, 5])
    }

    func testATimeOutThrowsAndDisposes() {
        let disposed = LockedFlag()
        let never = Observable<Int>.create { _ in Disposables.create { disposed.set() } }
        XCTAssertThrowsError(try never.toBlocking(timeout: 0.05).first()) { XCTAssertEqual($0 as? RxError, .timeout) }
        XCTAssertTrue(disposed.value)
    }

    func testMaterializeReportsATimeOutWithTheElementsBeforeIt() {
        let stalled = Observable<Int>.create { observer in
            observer.onNext(1)
            return Disposables.create()
        }
        guard case .failed(let elements, let error) = stalled.toBlocking(timeout: 0.05).materialize() else {
            return XCTFail("completed")
        }
        XCTAssertEqual(elements, [1])
        XCTAssertEqual(error as? RxError, .timeout)
    }

    func testOnTheMainThreadTheMainQueueRunsWhileWaiting() throws {
        XCTAssertTrue(Thread.isMainThread, "XCTest runs tests on the main thread")
        let fromMainQueue = Observable<Int>.create { observer in
            DispatchQueue.main.async {
                observer.onNext(5)
                observer.onCompleted()
            }
            return Disposables.create()
        }
        XCTAssertEqual(try fromMainQueue.toBlocking(timeout: 2).toArray(), [5])
        let delayed = Observable.just(1).delay(.milliseconds(1), scheduler: MainScheduler.instance)
        XCTAssertEqual(try delayed.toBlocking(timeout: 2).toArray(), [1])
    }

    func testFirstStopsListening() throws {
        let disposed = LockedFlag()
        let endless = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            return Disposables.create { disposed.set() }
        }
        XCTAssertEqual(try endless.toBlocking(timeout: 1).first(), 1)
        XCTAssertTrue(disposed.value)
    }
}

/// A flag set from any thread.
// @unchecked Sendable: `flag` is only touched under `lock`.
final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}
