import RxCore
import RxTesting
import XCTest

/// The common checks of `assertOperatorConformance`, run over every single-source operator.
final class OperatorConformanceTests: RxTestCase {
    func testKernelOperators() {
        assertOperatorConformance("map") { $0.map { $0 * 2 } }
        assertOperatorConformance("filter") { $0.filter { _ in true } }
        assertOperatorConformance("asSingle", passesElements: false) { $0.asSingle().asObservable() }
    }

    func testRetryOperators() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertOperatorConformance("retry(delay:)") { $0.retry(3, delay: .constant(time: 1), scheduler: scheduler) }
    }
}
