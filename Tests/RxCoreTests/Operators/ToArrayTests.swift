import RxCore
import RxTesting
import XCTest

final class ToArrayTests: RxTestCase {
    func testCollectsEveryElementIntoOneSuccess() {
        XCTAssertEqual(collect(Observable.of(1, 2, 3).toArray()), [.next([1, 2, 3])])
    }

    func testAnEmptySourceSucceedsWithAnEmptyArray() {
        XCTAssertEqual(collect(Observable<Int>.empty().toArray()), [.next([])])
    }

    func testAnErrorFailsTheSingle() {
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        XCTAssertEqual(collect(source.toArray()), [.error(TestError.boom)])
    }

    func testEmitsOnlyOnCompletionAndEachSubscriptionStartsEmpty() {
        let source = DrivenSource<Int>()
        let single = source.observable.toArray()
        nonisolated(unsafe) var results: [[Int]] = []
        let first = single.subscribe(onSuccess: { results.append($0) })
        source.onNext(1)
        XCTAssertEqual(results, [])
        source.onCompleted()
        let second = single.subscribe(onSuccess: { results.append($0) })
        source.onNext(2)
        source.onCompleted()
        XCTAssertEqual(results, [[1], [2]])
        first.dispose()
        second.dispose()
    }

    func testConformance() {
        assertOperatorBasics { $0.toArray().asObservable() }
    }
}
