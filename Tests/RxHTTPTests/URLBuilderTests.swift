import Foundation
@testable import RxHTTP
import XCTest

final class URLBuilderTests: XCTestCase {
    func testPlaceholder() {
        XCTAssertFalse(RxHTTPModule.version.isEmpty)
    }
}
