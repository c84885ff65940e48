import Foundation
import RxCore
import RxTesting
import XCTest

final class CompletableTests: RxTestCase {
    func testCreateDeliversOneTerminalEventThenDisposes() {
        nonisolated(unsafe) var events: [String] = []
        let subscription = Completable.create { completable in
            completable(.completed)
            completable(.error(TestError.boom))
            completable(.completed)
            return Disposables.create { events.append("upstream disposed") }
        }
        .subscribe(
            onCompleted: { events.append("completed") },
            onError: { _ in events.append("error") },
            onDisposed: { events.append("disposed") }
        )
        subscription.dispose()
        // Completed during subscribe: the subscription ends at once, and the disposable `create`
        // returns is disposed as soon as it is returned.
        XCTAssertEqual(events, ["completed", "disposed", "upstream disposed"])
    }

    func testErrorEmptyAndNever() {
        nonisolated(unsafe) var events: [String] = []
        _ = Completable.error(TestError.boom).subscribe { event in
            if case .error(let error) = event { events.append("error \(error)") }
        }
        _ = Completable.empty().subscribe { event in
            if case .completed = event { events.append("completed") }
        }
        let never = Completable.never().subscribe(onDisposed: { events.append("never disposed") })
        never.dispose()
        XCTAssertEqual(events, ["error boom", "completed", "never disposed"])
    }

    func testAsCompletableIgnoresElementsAndKeepsTheTermination() {
        nonisolated(unsafe) var events: [String] = []
        _ = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onCompleted()
            return Disposables.create()
        }
        .asCompletable()
        .subscribe(onCompleted: { events.append("completed") })
        _ = Observable<Int>.error(TestError.other).asCompletable().subscribe(onError: { events.append("\($0)") })
        _ = Observable<Int>.just(3).asSingle().asCompletable().subscribe(onCompleted: { events.append("single") })
        _ = Observable<Never>.empty().asCompletable().subscribe(onCompleted: { events.append("never-typed") })
        XCTAssertEqual(events, ["completed", "other", "single", "never-typed"])
    }

    func testAndThenSubscribesTheSecondOnlyAfterTheFirstCompletes() {
        nonisolated(unsafe) var finish: (() -> Void)?
        nonisolated(unsafe) var secondSubscriptions = 0
        let first = Completable.create { completable in
            finish = { completable(.completed) }
            return Disposables.create()
        }
        let second = Single<Int>.create { single in
            secondSubscriptions += 1
            single(.success(42))
            return Disposables.create()
        }
        nonisolated(unsafe) var result: Int?
        let subscription = first.andThen(second).subscribe(onSuccess: { result = $0 })
        XCTAssertEqual(secondSubscriptions, 0)
        finish?()
        XCTAssertEqual(secondSubscriptions, 1)
        XCTAssertEqual(result, 42)
        subscription.dispose()
        finish = nil
    }

    func testAndThenSkipsTheSecondAfterAnError() {
        nonisolated(unsafe) var secondSubscriptions = 0
        let second = Completable.create { completable in
            secondSubscriptions += 1
            completable(.completed)
            return Disposables.create()
        }
        nonisolated(unsafe) var failure: Error?
        _ = Completable.error(TestError.boom).andThen(second).subscribe(onError: { failure = $0 })
        XCTAssertEqual(failure as? TestError, .boom)
        XCTAssertEqual(secondSubscriptions, 0)
    }

    func testAndThenChainsCompletablesAndObservables() {
        nonisolated(unsafe) var events: [String] = []
        let step = { (name: String) in
            Completable.create { completable in
                events.append(name)
                completable(.completed)
                return Disposables.create()
            }
        }
        _ = step("a").andThen(step("b")).andThen(Observable.just(1)).subscribe(
            onNext: { events.append("next \($0)") },
            onCompleted: { events.append("completed") }
        )
        XCTAssertEqual(events, ["a", "b", "next 1", "completed"])
    }

    func testDisposingAndThenDisposesWhicheverPartIsRunning() {
        nonisolated(unsafe) var disposed: [String] = []
        let first = Completable.create { _ in Disposables.create { disposed.append("first") } }
        first.andThen(Completable.empty()).subscribe().dispose()

        let second = Single<Int>.create { _ in Disposables.create { disposed.append("second") } }
        Completable.empty().andThen(second).subscribe().dispose()
        XCTAssertEqual(disposed, ["first", "second"])
    }
}
