import Foundation
import RxCore
import RxTesting
import XCTest

/// A finished or disposed subscription lets go of its handlers, so a subscription kept in a bag is
/// no retain cycle through what its closures capture.
final class SubscriberClosureReleaseTests: RxTestCase {
    /// An object that owns a bag and is captured by the closures of a subscription it keeps in it:
    /// the everyday `subscribe(onNext: { self... }).disposed(by: bag)` pattern.
    // @unchecked Sendable: used from the test's one thread; it only has to be capturable by the
    // `@Sendable` handlers.
    private final class Owner: @unchecked Sendable {
        let bag = DisposeBag()
        var seen: [String] = []
    }

    func testSubscribeClosuresAreReleasedWhenTheSequenceCompletes() {
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            Observable.just(1)
                .subscribe(
                    onNext: { owner.seen.append("next \($0)") },
                    onError: { _ in owner.seen.append("error") },
                    onCompleted: { owner.seen.append("completed") },
                    onDisposed: { owner.seen.append("disposed") }
                )
                .disposed(by: owner.bag)
            XCTAssertEqual(owner.seen, ["next 1", "completed", "disposed"])
        }
        XCTAssertNil(weakOwner, "owner -> bag -> subscriber -> closure -> owner outlives the finished sequence")
    }

    func testSubscribeClosuresAreReleasedOnDispose() {
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            let subscription = Observable<Int>.never()
                .subscribe(onNext: { owner.seen.append("next \($0)") }, onDisposed: { owner.seen.append("disposed") })
            subscription.disposed(by: owner.bag)
            subscription.dispose()
            XCTAssertEqual(owner.seen, ["disposed"])
        }
        XCTAssertNil(weakOwner, "a disposed subscription still in the bag keeps its closures")
    }

    func testSingleSubscribeClosuresAreReleasedOnSuccess() {
        weak var weakOwner: Owner?
        do {
            let owner = Owner()
            weakOwner = owner
            Single.just(1)
                .subscribe(
                    onSuccess: { owner.seen.append("success \($0)") },
                    onFailure: { _ in owner.seen.append("failure") },
                    onDisposed: { owner.seen.append("disposed") }
                )
                .disposed(by: owner.bag)
            XCTAssertEqual(owner.seen, ["success 1", "disposed"])
        }
        XCTAssertNil(weakOwner, "owner -> bag -> single subscriber -> closure -> owner outlives the success")
    }
}
