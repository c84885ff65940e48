import RxNetworkKit
import XCTest

final class UmbrellaTests: XCTestCase {
    func testUmbrellaReExportsTheCoreTypes() {
        nonisolated(unsafe) var received: [Int] = []
        let subscription = Observable.just(7).map { $0 * 6 }.subscribe(onNext: { received.append($0) })
        subscription.dispose()
        XCTAssertEqual(received, [42])
        XCTAssertFalse(RxHTTPModule.version.isEmpty)
    }
}
