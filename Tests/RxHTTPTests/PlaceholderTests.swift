import RxHTTP
import XCTest

final class RxHTTPPlaceholderTests: XCTestCase {
    func testModuleNamesItsVersion() {
        XCTAssertEqual(RxHTTPModule.version.split(separator: ".").count, 3)
    }
}
