import RxCore
import RxTesting
import XCTest

final class RxTestCaseTests: RxTestCase {
    func testResourceCounterRisesWhileASubscriptionLivesAndFallsAfterDispose() throws {
        try XCTSkipUnless(Resources.isCounting, "resources are counted in debug builds only")
        let before = Resources.total
        var subscription: Disposable? = Observable<Int>.never().map { $0 }.subscribe()
        XCTAssertGreaterThan(Resources.total, before)
        subscription?.dispose()
        subscription = nil
        XCTAssertEqual(Resources.total, before, "a disposed subscription that nobody holds must be freed")
    }
}
