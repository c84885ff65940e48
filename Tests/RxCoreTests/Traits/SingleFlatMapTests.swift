import Foundation
import RxCore
import RxTesting
import XCTest

final class SingleFlatMapTests: RxTestCase {
    func testChainsASingleThatDependsOnTheFirstElement() {
        let first = ManualSingle<Int>()
        let second = ManualSingle<String>()
        nonisolated(unsafe) var requested: [Int] = []
        nonisolated(unsafe) var result: String?
        nonisolated(unsafe) var disposed = 0
        let subscription = first.single
            .flatMap { value -> Single<String> in
                requested.append(value)
                return second.single
            }
            .subscribe(onSuccess: { result = $0 }, onDisposed: { disposed += 1 })
        XCTAssertEqual(second.subscriptions, 0)
        first.succeed(42)
        XCTAssertEqual(requested, [42])
        XCTAssertEqual(second.subscriptions, 1)
        second.succeed("user 42")
        XCTAssertEqual(result, "user 42")
        XCTAssertEqual(disposed, 1)
        subscription.dispose()
    }

    func testFailsWhenTheFirstTheSelectorOrTheSecondFails() {
        nonisolated(unsafe) var failures: [TestError] = []
        _ = Single<Int>.create { $0(.failure(TestError.boom)); return Disposables.create() }
            .flatMap { Observable.just($0).asSingle() }
            .subscribe(onFailure: { failures.append($0 as? TestError ?? .other) })
        _ = Observable.just(1).asSingle()
            .flatMap { _ -> Single<Int> in throw TestError.other }
            .subscribe(onFailure: { failures.append($0 as? TestError ?? .boom) })
        _ = Observable.just(1).asSingle()
            .flatMap { _ in Single<Int>.create { $0(.failure(TestError.boom)); return Disposables.create() } }
            .subscribe(onFailure: { failures.append($0 as? TestError ?? .other) })
        XCTAssertEqual(failures, [.boom, .other, .boom])
    }

    func testDisposeCancelsWhicheverSingleIsRunning() {
        let first = ManualSingle<Int>()
        let second = ManualSingle<Int>()
        let early = first.single.flatMap { _ in second.single }.subscribe()
        early.dispose()
        XCTAssertEqual(first.disposals, 1)
        XCTAssertEqual(second.subscriptions, 0)

        let third = ManualSingle<Int>()
        let fourth = ManualSingle<Int>()
        nonisolated(unsafe) var results = 0
        let late = third.single.flatMap { _ in fourth.single }.subscribe(onSuccess: { _ in results += 1 })
        third.succeed(1)
        late.dispose()
        fourth.succeed(2)
        XCTAssertEqual(fourth.disposals, 1)
        XCTAssertEqual(results, 0)
    }

    func testFlatMapObservableContinuesWithASequence() {
        let recorder = GrammarRecorder<Int>()
        let subscription = recorder.subscribe(
            Observable.just(3).asSingle().flatMapObservable { count in
                Observable.concat((0..<count).map { Observable.just($0) })
            }
        )
        XCTAssertEqual(recorder.elements, [0, 1, 2])
        XCTAssertTrue(recorder.isCompleted)
        subscription.dispose()
    }
}
