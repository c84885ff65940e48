import RxCore
import RxTesting
import XCTest

final class CatchTests: RxTestCase {
    func testContinuesWithTheFallbackAfterAnError() {
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        nonisolated(unsafe) var caught: [Observed<Int>] = []
        let events = collect(source.catch { error in
            caught.append(.error(error))
            return .of(8, 9)
        })
        XCTAssertEqual(events, [.next(1), .next(8), .next(9), .completed])
        XCTAssertEqual(caught, [.error(TestError.boom)])
    }

    func testTheHandlerIsNotCalledWhenTheSourceCompletes() {
        nonisolated(unsafe) var calls = 0
        let events = collect(Observable.of(1).catch { _ in
            calls += 1
            return .empty()
        })
        XCTAssertEqual(events, [.next(1), .completed])
        XCTAssertEqual(calls, 0)
    }

    func testAnErrorFromTheFallbackIsDelivered() {
        let events = collect(Observable<Int>.error(TestError.boom).catch { _ in .error(TestError.other) })
        XCTAssertEqual(events, [.error(TestError.other)])
    }

    func testAThrowingHandlerFailsWithTheThrownError() {
        let events = collect(Observable<Int>.error(TestError.boom).catch { _ in throw TestError.other })
        XCTAssertEqual(events, [.error(TestError.other)])
    }

    func testDisposingWhileOnTheFallbackDisposesTheFallback() {
        let source = DrivenSource<Int>()
        let fallback = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.catch { _ in fallback.observable })
        source.onError(TestError.boom)
        XCTAssertEqual(source.observerCount, 0)
        fallback.onNext(5)
        subscription.dispose()
        fallback.onNext(6)
        XCTAssertEqual(recorder.events, [.next(5)])
        XCTAssertEqual(fallback.observerCount, 0)
        XCTAssertEqual(recorder.disposed, 1)
    }

    func testTheFallbackCompletingReleasesEverything() {
        let fallback = DrivenSource<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(Observable<Int>.error(TestError.boom).catch { _ in fallback.observable })
        fallback.onCompleted()
        XCTAssertEqual(recorder.events, [.completed])
        XCTAssertEqual(fallback.observerCount, 0)
        XCTAssertEqual(recorder.disposed, 1)
        subscription.dispose()
    }

    func testCatchAndReturnEndsWithTheElementInsteadOfTheError() {
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        XCTAssertEqual(collect(source.catchAndReturn(0)), [.next(1), .next(0), .completed])
        XCTAssertEqual(collect(Observable.of(1).catchAndReturn(0)), [.next(1), .completed])
    }

    func testAnInfiniteFallbackStopsWhenDownstreamIsDone() {
        nonisolated(unsafe) var pulled = 0
        nonisolated(unsafe) let long = (0..<100_000).lazy.map { value -> Int in
            pulled += 1
            return value
        }
        let events = collect(Observable<Int>.error(TestError.boom).catch { _ in .from(long) }.take(2))
        XCTAssertEqual(events, [.next(0), .next(1), .completed])
        XCTAssertEqual(pulled, 2)
    }

    func testConformance() {
        assertOperatorBasics { $0.catch { _ in .of(7) } }
        assertOperatorBasics { $0.catchAndReturn(7) }
    }
}
