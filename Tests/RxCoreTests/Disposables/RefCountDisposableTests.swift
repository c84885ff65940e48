import Dispatch
import RxCore
import RxTesting
import XCTest

/// `RefCountDisposable` disposes its underlying disposable once the primary handle and every
/// retained handle have been disposed, whichever goes last.
final class RefCountDisposableTests: RxTestCase {
    func testRetainedHandlesReleasedFirstThenThePrimaryDisposes() {
        let underlying = BooleanDisposable()
        let refCount = RefCountDisposable(disposable: underlying)
        XCTAssertFalse(refCount.isDisposed)
        let first = refCount.retain()
        let second = refCount.retain()
        first.dispose()
        second.dispose()
        XCTAssertFalse(underlying.isDisposed, "the primary handle still holds the resource")
        XCTAssertFalse(refCount.isDisposed)
        refCount.dispose()
        XCTAssertTrue(underlying.isDisposed)
        XCTAssertTrue(refCount.isDisposed)
    }

    func testThePrimaryFirstThenTheLastRetainedHandleDisposes() {
        let underlying = BooleanDisposable()
        let refCount = RefCountDisposable(disposable: underlying)
        let first = refCount.retain()
        let second = refCount.retain()
        first.dispose()
        refCount.dispose()
        XCTAssertFalse(underlying.isDisposed, "a retained handle is still outstanding")
        XCTAssertFalse(refCount.isDisposed, "isDisposed follows the underlying disposable")
        second.dispose()
        XCTAssertTrue(underlying.isDisposed)
        XCTAssertTrue(refCount.isDisposed)
    }

    func testWithoutRetainedHandlesThePrimaryDisposesAtOnce() {
        let log = DisposeLog()
        let refCount = RefCountDisposable(disposable: ValueDisposable("underlying", log: log))
        refCount.dispose()
        XCTAssertEqual(log.names, ["underlying"])
        refCount.dispose()
        XCTAssertEqual(log.count, 1, "disposing the primary twice disposed the resource twice")
    }

    func testDisposingARetainedHandleTwiceCountsOnce() {
        let underlying = BooleanDisposable()
        let refCount = RefCountDisposable(disposable: underlying)
        let first = refCount.retain()
        let second = refCount.retain()
        refCount.dispose()
        first.dispose()
        first.dispose()
        XCTAssertFalse(underlying.isDisposed, "a double release of one handle released the other one")
        second.dispose()
        XCTAssertTrue(underlying.isDisposed)
    }

    func testRetainingAfterThePrimaryWhileAHandleIsOutstandingKeepsTheResource() {
        let underlying = BooleanDisposable()
        let refCount = RefCountDisposable(disposable: underlying)
        let first = refCount.retain()
        refCount.dispose()
        let late = refCount.retain()
        first.dispose()
        XCTAssertFalse(underlying.isDisposed, "the late handle keeps the resource")
        late.dispose()
        XCTAssertTrue(underlying.isDisposed)
    }

    func testRetainingAfterTheResourceWasDisposedGivesAHandleThatDoesNothing() {
        let log = DisposeLog()
        let refCount = RefCountDisposable(disposable: ValueDisposable("underlying", log: log))
        refCount.dispose()
        let late = refCount.retain()
        late.dispose()
        XCTAssertEqual(log.names, ["underlying"])
    }

    func testConcurrentRetainsAndReleasesDisposeTheResourceExactlyOnce() {
        for _ in 0..<50 {
            let log = DisposeLog()
            let refCount = RefCountDisposable(disposable: ValueDisposable("underlying", log: log))
            let handles = (0..<16).map { _ in refCount.retain() }
            DispatchQueue.concurrentPerform(iterations: handles.count + 1) { index in
                if index == handles.count {
                    refCount.dispose()
                } else {
                    handles[index].dispose()
                    handles[index].dispose()
                }
            }
            XCTAssertEqual(log.names, ["underlying"])
            XCTAssertTrue(refCount.isDisposed)
        }
    }
}
