import RxCore
import RxTesting
import XCTest

final class StartWithTests: RxTestCase {
    func testEmitsThePrefixThenTheSource() {
        XCTAssertEqual(
            collect(Observable.of(3, 4).startWith(1, 2)),
            [.next(1), .next(2), .next(3), .next(4), .completed]
        )
    }

    func testThePrefixGoesOutBeforeTheSourceIsSubscribed() {
        let source = DrivenSource<Int>()
        nonisolated(unsafe) var subscriptionsSeenAtPrefix: [Int] = []
        let subscription = source.observable.startWith(0).subscribe(onNext: { _ in
            subscriptionsSeenAtPrefix.append(source.subscriptions)
        })
        XCTAssertEqual(subscriptionsSeenAtPrefix, [0])
        XCTAssertEqual(source.subscriptions, 1)
        subscription.dispose()
    }

    func testTheSourceIsNotSubscribedWhenThePrefixIsAllThatIsWanted() {
        let source = DrivenSource<Int>()
        XCTAssertEqual(collect(source.observable.startWith(1, 2, 3).take(2)), [.next(1), .next(2), .completed])
        XCTAssertEqual(source.subscriptions, 0)
    }

    func testConformance() {
        assertOperatorBasics { $0.startWith(0) }
    }
}
