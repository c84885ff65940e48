import Foundation
import RxCore
import RxTesting
import XCTest

/// A non-Sendable element: the bridge must not require `Sendable`.
private final class Counter {
    var value = 0
}

final class AsyncBridgeTests: RxTestCase {
    // MARK: Single.value and Completable.value

    func testSingleValueReturnsTheElementOrThrowsTheError() async throws {
        let value = try await Observable.just(5).asSingle().value
        XCTAssertEqual(value, 5)
        do {
            _ = try await Observable<Int>.error(TestError.boom).asSingle().value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, .boom)
        }
    }

    func testCancellingTheAwaitingTaskDisposesTheSubscriptionAndThrowsCancellationError() async {
        let subscribed = expectation(description: "subscribed")
        let disposed = LockedBox(false)
        let never = Single<Int>.create { _ in
            subscribed.fulfill()
            return Disposables.create { disposed.mutate { $0 = true } }
        }
        let task = Task { try await never.value }
        await fulfillment(of: [subscribed], timeout: 2)
        XCTAssertFalse(disposed.value)
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("expected CancellationError")
        } catch {
            XCTAssertTrue(error is CancellationError, "got \(error)")
        }
        XCTAssertTrue(disposed.value, "the upstream dispose handler ran")
    }

    func testAwaitingInAnAlreadyCancelledTaskThrowsWithoutLeavingTheWorkRunning() async {
        let disposed = LockedBox(0)
        let never = Single<Int>.create { _ in Disposables.create { disposed.mutate { $0 += 1 } } }
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await never.value
        }
        do {
            _ = try await task.value
            XCTFail("expected CancellationError")
        } catch {
            XCTAssertTrue(error is CancellationError, "got \(error)")
        }
        XCTAssertEqual(disposed.value, 1)
    }

    func testCompletableValueReturnsOnCompletionAndThrowsOnCancel() async throws {
        try await Completable.empty().value
        let disposed = LockedBox(false)
        let subscribed = expectation(description: "subscribed")
        let never = Completable.create { _ in
            subscribed.fulfill()
            return Disposables.create { disposed.mutate { $0 = true } }
        }
        let task = Task { try await never.value }
        await fulfillment(of: [subscribed], timeout: 2)
        task.cancel()
        do {
            try await task.value
            XCTFail("expected CancellationError")
        } catch {
            XCTAssertTrue(error is CancellationError, "got \(error)")
        }
        XCTAssertTrue(disposed.value)
    }

    // MARK: Observable.values

    func testValuesYieldsEveryElementThenFinishes() async throws {
        var received: [Int] = []
        for try await value in Observable<Int>.create({ observer in
            (1...3).forEach(observer.onNext)
            observer.onCompleted()
            return Disposables.create()
        }).values {
            received.append(value)
        }
        XCTAssertEqual(received, [1, 2, 3])
    }

    func testValuesThrowsTheSequencesError() async {
        var received: [Int] = []
        do {
            for try await value in Observable<Int>.create({ observer in
                observer.onNext(1)
                observer.onError(TestError.other)
                return Disposables.create()
            }).values {
                received.append(value)
            }
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, .other)
        }
        XCTAssertEqual(received, [1])
    }

    func testCancellingTheConsumingTaskDisposesTheSubscription() async {
        let subject = PublishSubject<Int>()
        let disposed = expectation(description: "upstream disposed")
        let source = Observable<Int>.create { observer in
            let inner = subject.subscribe(observer)
            return Disposables.create {
                inner.dispose()
                disposed.fulfill()
            }
        }
        let firstReceived = expectation(description: "first element")
        let task = Task {
            var received: [Int] = []
            for try await value in source.values {
                received.append(value)
                if value == 1 { firstReceived.fulfill() }
            }
            return received
        }
        while !subject.hasObservers { await Task.yield() }
        subject.onNext(1)
        await fulfillment(of: [firstReceived], timeout: 2)
        task.cancel()
        await fulfillment(of: [disposed], timeout: 2)
        XCTAssertFalse(subject.hasObservers)
        // A cancelled iteration either ends quietly or throws CancellationError.
        switch await task.result {
        case .success(let received): XCTAssertEqual(received, [1])
        case .failure(let error): XCTAssertTrue(error is CancellationError, "got \(error)")
        }
    }

    func testBreakingOutOfTheLoopDisposesTheSubscription() async throws {
        let subject = BehaviorSubject(value: 0)
        let disposed = expectation(description: "upstream disposed")
        let source = Observable<Int>.create { observer in
            let inner = subject.subscribe(observer)
            return Disposables.create {
                inner.dispose()
                disposed.fulfill()
            }
        }
        for try await value in source.values where value == 0 {
            break
        }
        await fulfillment(of: [disposed], timeout: 2)
        XCTAssertFalse(subject.hasObservers)
    }

    // MARK: From async work

    func testSingleCreateRunsTheWorkPerSubscriptionAndDeliversItsResult() async throws {
        let runs = LockedBox(0)
        let single = Single<Int>.create {
            runs.mutate { $0 += 1 }
            try await Task.sleep(nanoseconds: 1_000_000)
            return 42
        }
        let first = try await single.value
        let second = try await single.value
        XCTAssertEqual([first, second], [42, 42])
        XCTAssertEqual(runs.value, 2)
        do {
            _ = try await Single<Int>.create(detached: true, priority: .low) { throw TestError.boom }.value
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error as? TestError, .boom)
        }
    }

    func testDisposingTheSubscriptionCancelsTheTask() {
        let started = expectation(description: "work started")
        let cancelled = expectation(description: "work saw its cancellation")
        let delivered = LockedBox(false)
        let subscription = Single<Int>.create {
            started.fulfill()
            do {
                try await Task.sleep(nanoseconds: 30_000_000_000)
            } catch is CancellationError {
                XCTAssertTrue(Task.isCancelled)
                cancelled.fulfill()
                throw CancellationError()
            }
            return 1
        }
        .subscribe(
            onSuccess: { _ in delivered.mutate { $0 = true } },
            onFailure: { _ in delivered.mutate { $0 = true } }
        )
        wait(for: [started], timeout: 2)
        subscription.dispose()
        wait(for: [cancelled], timeout: 2)
        XCTAssertFalse(delivered.value, "nothing is delivered after dispose")
    }

    func testAnAsyncSequenceBecomesAnObservable() {
        let stream = AsyncStream<Int> { continuation in
            (1...3).forEach { continuation.yield($0) }
            continuation.finish()
        }
        let log = SubjectEventLog<Int>()
        let completed = expectation(description: "completed")
        let subscription = stream.asObservable().subscribe { event in
            log.record(event)
            if event.isCompleted { completed.fulfill() }
        }
        wait(for: [completed], timeout: 2)
        XCTAssertEqual(log.events, ["1", "2", "3", "completed"])
        subscription.dispose()
    }

    func testDisposingTheObservableOfAnAsyncSequenceCancelsTheIteration() {
        let terminated = expectation(description: "iteration cancelled")
        let stream = AsyncStream<Int> { continuation in
            continuation.onTermination = { termination in
                if case .cancelled = termination { terminated.fulfill() }
            }
            continuation.yield(1)
        }
        let first = expectation(description: "first element")
        let subscription = stream.asObservable().subscribe(onNext: { _ in first.fulfill() })
        wait(for: [first], timeout: 2)
        subscription.dispose()
        wait(for: [terminated], timeout: 2)
    }

    // MARK: Non-Sendable elements

    func testNonSendableElementsCrossTheBridge() async throws {
        let counter = try await Observable.just(Counter()).asSingle().value
        counter.value += 1
        for try await element in Observable.just(Counter()).values {
            element.value += 1
        }
        XCTAssertEqual(counter.value, 1)
    }

    @MainActor
    func testAMainActorCallerGetsANonSendableElement() async throws {
        let counter = try await Observable.just(Counter()).asSingle().value
        counter.value += 1
        XCTAssertEqual(counter.value, 1)
    }
}
