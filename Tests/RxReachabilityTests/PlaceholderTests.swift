import RxReachability
import XCTest

final class RxReachabilityPlaceholderTests: XCTestCase {
    func testModuleLinks() {
        XCTAssertNotNil(RxReachabilityModule.self)
    }
}
