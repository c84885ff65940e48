import RxCore
import RxTesting
import XCTest

/// The common checks of `assertOperatorConformance`, run over the time operators.
final class TimeOperatorConformanceTests: RxTestCase {
    func testTimeOperators() {
        let scheduler = TestScheduler(simulateProcessingDelay: false)
        assertOperatorConformance("timeout") { $0.timeout(.seconds(5), scheduler: scheduler) }
        assertOperatorConformance("timeout(other:)") {
            $0.timeout(.seconds(5), other: Observable.never(), scheduler: scheduler)
        }
        assertOperatorConformance("delay", passesElements: false) { $0.delay(.seconds(5), scheduler: scheduler) }
        assertOperatorConformance("debounce", passesElements: false) { $0.debounce(.seconds(5), scheduler: scheduler) }
        assertOperatorConformance("throttle") { $0.throttle(.seconds(5), scheduler: scheduler) }
        assertOperatorConformance("throttle(latest: false)") {
            $0.throttle(.seconds(5), latest: false, scheduler: scheduler)
        }
        assertOperatorConformance("observe(on:)") { $0.observe(on: ImmediateScheduler.instance) }
        assertOperatorConformance("subscribe(on:)") { $0.subscribe(on: ImmediateScheduler.instance) }
        assertOperatorConformance("Single.timeout", passesElements: false) {
            $0.asSingle().timeout(.seconds(5), scheduler: scheduler).asObservable()
        }
    }
}
