import RxCore
import RxTesting
import XCTest

final class FirstTests: RxTestCase {
    func testSucceedsWithTheFirstElementAndDisposesTheSource() {
        let source = DrivenSource<Int>()
        nonisolated(unsafe) var results: [Int?] = []
        let subscription = source.observable.first().subscribe(onSuccess: { results.append($0) })
        source.onNext(4)
        XCTAssertEqual(results, [4])
        XCTAssertEqual(source.observerCount, 0)
        source.onNext(5)
        XCTAssertEqual(results, [4])
        subscription.dispose()
    }

    func testSucceedsWithNilOnAnEmptySource() {
        XCTAssertEqual(collect(Observable<Int>.empty().first()), [.next(nil)])
    }

    func testFailsWithTheSourceError() {
        XCTAssertEqual(collect(Observable<Int>.error(TestError.boom).first()), [.error(TestError.boom)])
    }

    func testConformance() {
        assertOperatorBasics { $0.first().asObservable() }
    }
}
