#if canImport(XCTest)
import Foundation
import RxCore
import XCTest

/// An `XCTestCase` that fails a test whose subscriptions outlive it.
///
/// It records `Resources.total` before each test and, after it, waits up to `resourceSettleTimeout`
/// for the count to come back (work disposed on a background queue may finish a moment later),
/// then asserts it did. A test that legitimately keeps something alive (a shared singleton) sets
/// `checksResources = false`.
open class RxTestCase: XCTestCase {
    /// Whether `tearDown` asserts that every resource created by the test was released.
    open var checksResources: Bool { true }

    /// How long `tearDown` waits for background disposal to finish.
    open var resourceSettleTimeout: TimeInterval { 2 }

    private var resourcesAtStart = 0

    /// Records `Resources.total` before the test; call `super.setUp()` from an override.
    override open func setUp() {
        super.setUp()
        resourcesAtStart = Resources.total
    }

    /// Fails the test if `Resources.total` has not returned to its value at `setUp` within
    /// `resourceSettleTimeout`; call `super.tearDown()` from an override.
    override open func tearDown() {
        if checksResources && Resources.isCounting {
            let deadline = Date().addingTimeInterval(resourceSettleTimeout)
            while Resources.total != resourcesAtStart && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.002)
            }
            XCTAssertEqual(
                Resources.total, resourcesAtStart,
                "live RxCore resources after the test: a subscription outlived its dispose, or a retain cycle"
            )
        }
        super.tearDown()
    }
}
#endif
