import Dispatch
import Foundation
import RxCore
import RxTesting
import XCTest

final class SingleZipTests: RxTestCase {
    func testZipsTwoThreeAndFourSinglesIntoTuplesOrWithASelector() {
        nonisolated(unsafe) var results: [String] = []
        _ = Single.zip(Single.create { $0(.success(1)); return Disposables.create() }, Observable.just("a").asSingle())
            .subscribe(onSuccess: { results.append("\($0.0)\($0.1)") })
        _ = Single.zip(Observable.just(1).asSingle(), Observable.just(2).asSingle()) { $0 + $1 }
            .subscribe(onSuccess: { results.append("\($0)") })
        _ = Single.zip(Observable.just(1).asSingle(), Observable.just("b").asSingle(), Observable.just(true).asSingle())
            .subscribe(onSuccess: { results.append("\($0.0)\($0.1)\($0.2)") })
        _ = Single.zip(
            Observable.just(1).asSingle(), Observable.just(2).asSingle(),
            Observable.just(3).asSingle(), Observable.just(4).asSingle()
        )
        .subscribe(onSuccess: { results.append("\($0.0 + $0.1 + $0.2 + $0.3)") })
        _ = Single.zip(Observable.just(1).asSingle(), Observable.just(2).asSingle(), Observable.just(3).asSingle()) {
            $0 * $1 * $2
        }
        .subscribe(onSuccess: { results.append("\($0)") })
        _ = Single.zip(
            Observable.just(1).asSingle(), Observable.just(2).asSingle(),
            Observable.just(3).asSingle(), Observable.just(4).asSingle()
        ) { $0 * $1 * $2 * $3 }
        .subscribe(onSuccess: { results.append("\($0)") })
        XCTAssertEqual(results, ["1a", "3", "1btrue", "10", "6", "24"])
    }

    func testSucceedsOnceBothHaveInWhateverOrderTheyFinish() {
        let first = ManualSingle<Int>()
        let second = ManualSingle<String>()
        nonisolated(unsafe) var results: [String] = []
        nonisolated(unsafe) var disposed = 0
        let subscription = Single.zip(first.single, second.single)
            .subscribe(onSuccess: { results.append("\($0.0)\($0.1)") }, onDisposed: { disposed += 1 })
        second.succeed("x")
        XCTAssertEqual(results, [])
        first.succeed(5)
        XCTAssertEqual(results, ["5x"])
        XCTAssertEqual(disposed, 1)
        XCTAssertEqual(first.disposals, 1)
        XCTAssertEqual(second.disposals, 1)
        subscription.dispose()
    }

    func testAFailureFailsAtOnceAndCancelsTheOthers() {
        let sources = (0..<3).map { _ in ManualSingle<Int>() }
        nonisolated(unsafe) var failure: Error?
        nonisolated(unsafe) var successes = 0
        let subscription = Single.zip(sources.map(\.single))
            .subscribe(onSuccess: { _ in successes += 1 }, onFailure: { failure = $0 })
        sources[0].succeed(1)
        sources[2].fail(TestError.boom)
        sources[1].succeed(2)
        XCTAssertEqual(failure as? TestError, .boom)
        XCTAssertEqual(successes, 0)
        XCTAssertEqual(sources.map(\.disposals), [1, 1, 1])
        subscription.dispose()
    }

    func testACollectionKeepsItsOrderAndAnEmptyOneSucceedsWithAnEmptyArray() {
        let sources = (0..<4).map { _ in ManualSingle<Int>() }
        nonisolated(unsafe) var result: [Int]?
        let subscription = Single.zip(sources.map(\.single)).subscribe(onSuccess: { result = $0 })
        for index in [2, 0, 3, 1] {
            sources[index].succeed(index * 10)
        }
        XCTAssertEqual(result, [0, 10, 20, 30])
        subscription.dispose()

        nonisolated(unsafe) var empty: [Int]?
        _ = Single<Int>.zip([Single<Int>]()).subscribe(onSuccess: { empty = $0 })
        XCTAssertEqual(empty, [])

        nonisolated(unsafe) var sum: Int?
        _ = Single.zip([Observable.just(1).asSingle(), Observable.just(2).asSingle()]) { $0.reduce(0, +) }
            .subscribe(onSuccess: { sum = $0 })
        XCTAssertEqual(sum, 3)
    }

    func testDisposeCancelsEverySource() {
        let sources = (0..<2).map { _ in ManualSingle<Int>() }
        nonisolated(unsafe) var events = 0
        let subscription = Single.zip(sources[0].single, sources[1].single)
            .subscribe(onSuccess: { _ in events += 1 }, onFailure: { _ in events += 1 })
        subscription.dispose()
        sources[0].succeed(1)
        sources[1].succeed(2)
        XCTAssertEqual(events, 0)
        XCTAssertEqual(sources.map(\.disposals), [1, 1])
    }

    func testSinglesFinishingConcurrentlyOnOtherThreadsSucceedExactlyOnce() {
        for _ in 0..<100 {
            let sources = (0..<8).map { _ in ManualSingle<Int>() }
            let outcomes = LockedBox<[Result<[Int], TestError>]>([])
            let subscription = Single.zip(sources.map(\.single)).subscribe(
                onSuccess: { values in outcomes.mutate { $0.append(.success(values)) } },
                onFailure: { _ in outcomes.mutate { $0.append(.failure(.boom)) } }
            )
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                sources[index].succeed(index)
            }
            XCTAssertEqual(outcomes.value, [.success(Array(0..<8))])
            subscription.dispose()
        }
    }
}
