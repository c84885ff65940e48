import RxCore
import RxTesting
import XCTest

/// RxSwift users extend one trait through the protocol; this one must compile and apply to
/// `Single` only.
extension PrimitiveSequenceType where Trait == SingleTrait, Element == Int {
    fileprivate func doubled() -> Single<Int> {
        primitiveSequence.map { $0 * 2 }
    }
}

/// What the three traits share as one generic type (`PrimitiveSequence<Trait, Element>`), and the
/// trait API that arrived with it.
final class PrimitiveSequenceTests: RxTestCase {
    func testAnExtensionOfOneTraitThroughThePrimitiveSequenceTypeProtocol() {
        nonisolated(unsafe) var result: Int?
        _ = Single.just(21).doubled().subscribe(onSuccess: { result = $0 })
        XCTAssertEqual(result, 42)
    }

    /// The events of `make`'s sequence, subscribed at 200 (disposed at 1000) on a fresh scheduler.
    private func events<Element>(
        _ make: @escaping (TestScheduler) -> Observable<Element>
    ) -> [Recorded<Event<Element>>] {
        let scheduler = TestScheduler(initialClock: 0)
        return scheduler.start { make(scheduler) }.events
    }

    func testJustOnASchedulerDeliversThereAndDisposingBeforeCancelsIt() {
        XCTAssertEqual(events { Single.just(7, scheduler: $0).asObservable() }, [.next(201, 7), .completed(202)])
        let scheduler = TestScheduler(initialClock: 0)
        let maybe = scheduler.start(created: 100, subscribed: 200, disposed: 200) {
            Maybe.just("m", scheduler: scheduler).asObservable()
        }
        XCTAssertEqual(maybe.events, [])
    }

    func testMaybeValueReturnsTheElementNilWhenEmptyOrThrows() async throws {
        let element = try await Maybe.just(3).value
        XCTAssertEqual(element, 3)
        let nothing = try await Maybe<Int>.empty().value
        XCTAssertNil(nothing)
        let optionalNil = try await Maybe<Int?>.just(nil).value
        XCTAssertEqual(optionalNil, .some(nil), "a nil element is not an empty completion")
        do {
            _ = try await Maybe<Int>.error(TestError.boom).value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, .boom)
        }
    }

    func testMaybeValueCancelledDisposesTheSubscription() async {
        let disposed = LockedBox(0)
        let never = Maybe<Int>.create { _ in Disposables.create { disposed.mutate { $0 += 1 } } }
        let task = Task { try await never.value }
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected CancellationError")
        } catch {
            XCTAssertTrue(error is CancellationError, "got \(error)")
        }
        XCTAssertEqual(disposed.value, 1)
    }

    func testMaybeSubscribeWithAnObjectStopsOnceItIsGone() {
        final class Owner: Sendable {}
        let source = PublishSubject<Int>()
        nonisolated(unsafe) var seen: [Int] = []
        var owner: Owner? = Owner()
        let subscription = source.asMaybe().subscribe(with: owner!, onSuccess: { _, value in seen.append(value) })
        owner = nil
        source.onNext(1)
        source.onCompleted()
        XCTAssertEqual(seen, [], "the handler does not run once the object is gone")
        subscription.dispose()

        let alive = Owner()
        _ = Maybe.just(5).subscribe(with: alive, onSuccess: { _, value in seen.append(value) })
        _ = Maybe<Int>.empty().subscribe(with: alive, onCompleted: { _ in seen.append(-1) })
        XCTAssertEqual(seen, [5, -1])
    }

    func testOneRetryServesEveryTraitWithEachTraitsGrammarForZeroAttempts() {
        XCTAssertEqual(events { _ in Single<Int>.error(TestError.boom).retry(0).asObservable() },
                       [.error(200, RxError.noElements)])
        XCTAssertEqual(events { _ in Maybe<Int>.error(TestError.boom).retry(0).asObservable() }, [.completed(200)])
        XCTAssertEqual(events { _ in Completable.error(TestError.boom).retry(0).asObservable() }, [.completed(200)])
    }

    func testTheSharedOperatorsKeepTheTraitOfTheirSource() {
        let single = events { scheduler -> Observable<Int> in
            let single: Single<Int> = Single.just(1).delay(.seconds(5), scheduler: scheduler)
                .timeout(.seconds(10), scheduler: scheduler).observe(on: scheduler).catch { _ in .just(0) }
            return single.asObservable()
        }
        XCTAssertEqual(single, [.next(206, 1), .completed(207)])
        let maybe = events { scheduler -> Observable<Int> in
            let maybe: Maybe<Int> = Maybe<Int>.empty().delaySubscription(.seconds(5), scheduler: scheduler)
                .catchAndReturn(9).debug("maybe", trimOutput: true)
            return maybe.asObservable()
        }
        XCTAssertEqual(maybe, [.completed(205)])
        let completable = events { scheduler -> Observable<Never> in
            let completable: Completable = Completable.error(TestError.boom).delay(.seconds(5), scheduler: scheduler)
                .retry(3).subscribe(on: scheduler)
            return completable.asObservable()
        }
        XCTAssertEqual(completable, [.error(201, TestError.boom)], "an error is not delayed; three attempts")
    }
}
