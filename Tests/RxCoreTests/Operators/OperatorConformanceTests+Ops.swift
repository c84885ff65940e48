import RxCore
import RxTesting
import XCTest

/// The shared conformance checks over the creation-side and single-source operators of RxCore.
extension OperatorConformanceTests {
    func testTransformingOperators() {
        assertOperatorConformance("compactMap") { $0.compactMap { $0 } }
        assertOperatorConformance("scan") { $0.scan(0, accumulator: +) }
        assertOperatorConformance("scan(into:)") { $0.scan(into: 0) { $0 += $1 } }
        assertOperatorConformance("reduce", passesElements: false) { $0.reduce(0, accumulator: +) }
        assertOperatorConformance("toArray", passesElements: false) { $0.toArray().asObservable() }
        assertOperatorConformance("enumerated") { $0.enumerated().map(\.index) }
        assertOperatorConformance("materialize") { $0.materialize().map { $0.element ?? 0 } }
        assertOperatorConformance("dematerialize") { $0.materialize().dematerialize() }
        assertOperatorConformance("do") { $0.do(onNext: { _ in }, onDispose: {}) }
        assertOperatorConformance("startWith", passesElements: false) { $0.startWith(0) }
    }

    func testFilteringOperators() {
        assertOperatorConformance("take") { $0.take(5) }
        assertOperatorConformance("take(while:)") { $0.take(while: { _ in true }) }
        assertOperatorConformance("take(until: predicate)") { $0.take(until: { _ in false }) }
        assertOperatorConformance("take(until: other)") { $0.take(until: Observable<Int>.never()) }
        assertOperatorConformance("skip", passesElements: false) { $0.skip(1) }
        assertOperatorConformance("skip(while:)") { $0.skip(while: { _ in false }) }
        assertOperatorConformance("distinctUntilChanged") { $0.distinctUntilChanged() }
        assertOperatorConformance("single") { $0.single() }
        assertOperatorConformance("first") { $0.first().asObservable() }
        assertOperatorConformance("element(at:)", passesElements: false) { $0.element(at: 1) }
        assertOperatorConformance("ignoreElements", passesElements: false) { $0.ignoreElements().materialize() }
    }

    func testErrorHandlingOperators() {
        assertOperatorConformance("catch") { $0.catch { _ in .empty() } }
        assertOperatorConformance("catchAndReturn") { $0.catchAndReturn(0) }
        assertOperatorConformance("retry()") { $0.retry() }
        assertOperatorConformance("retry(_:)") { $0.retry(3) }
        assertOperatorConformance("retry(when:)") { $0.retry(when: { errors in errors }) }
    }
}
