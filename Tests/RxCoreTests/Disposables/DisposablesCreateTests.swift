import RxCore
import RxTesting
import XCTest

/// `Disposables.create` with four or more disposables disposes all of them, once each, in argument
/// order; the fixed-arity forms still pick their own overloads.
final class DisposablesCreateTests: RxTestCase {
    func testFourOrMoreDisposablesAreDisposedOnceEachInArgumentOrder() {
        let log = DisposeLog()
        let group = Disposables.create(
            Disposables.create { log.record("1") },
            ValueDisposable("2", log: log),
            Disposables.create { log.record("3") },
            Disposables.create { log.record("4") },
            ValueDisposable("5", log: log)
        )
        XCTAssertEqual(log.count, 0, "creating the group disposed something")
        XCTAssertFalse(group.isDisposed)
        group.dispose()
        XCTAssertTrue(group.isDisposed)
        XCTAssertEqual(log.names, ["1", "2", "3", "4", "5"])
        group.dispose()
        XCTAssertEqual(log.count, 5, "a second dispose disposed a member again")
    }

    func testExactlyFourDisposables() {
        let log = DisposeLog()
        let group = Disposables.create(
            ValueDisposable("a", log: log), ValueDisposable("b", log: log),
            ValueDisposable("c", log: log), ValueDisposable("d", log: log)
        )
        group.dispose()
        XCTAssertEqual(log.names, ["a", "b", "c", "d"])
    }

    func testThreeDisposablesStillUseTheThreeArgumentForm() {
        let log = DisposeLog()
        let group: Cancelable = Disposables.create(
            ValueDisposable("a", log: log), ValueDisposable("b", log: log), ValueDisposable("c", log: log)
        )
        group.dispose()
        XCTAssertEqual(log.names, ["a", "b", "c"])
    }

    func testSubscriptionsInTheGroupAreReleasedWhenItIsDisposed() {
        let log = DisposeLog()
        let subscriptions = (1...6).map { index in
            Observable<Int>.never().subscribe(onDisposed: { log.record("\(index)") })
        }
        Disposables.create(
            subscriptions[0], subscriptions[1], subscriptions[2],
            subscriptions[3], subscriptions[4], subscriptions[5]
        ).dispose()
        XCTAssertEqual(log.names, ["1", "2", "3", "4", "5", "6"])
    }
}
