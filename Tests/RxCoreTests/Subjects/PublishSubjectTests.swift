import Foundation
import RxCore
import RxTesting
import XCTest

final class PublishSubjectTests: RxTestCase {
    func testDeliversOnlyLaterEventsToEachObserverInSubscriptionOrder() {
        let subject = PublishSubject<Int>()
        nonisolated(unsafe) var order: [String] = []
        subject.onNext(0)
        let first = subject.subscribe(onNext: { order.append("a\($0)") })
        subject.onNext(1)
        let second = subject.subscribe(onNext: { order.append("b\($0)") })
        subject.onNext(2)
        first.dispose()
        subject.onNext(3)
        second.dispose()
        subject.onNext(4)
        XCTAssertEqual(order, ["a1", "a2", "b2", "b3"])
        XCTAssertFalse(subject.hasObservers)
    }

    func testTerminalEventEndsTheSequenceAndIsReplayedToLateSubscribers() {
        let subject = PublishSubject<Int>()
        let early = SubjectEventLog<Int>()
        let subscription = early.subscribe(to: subject)
        subject.onNext(1)
        subject.onError(TestError.boom)
        subject.onNext(2)
        subject.onCompleted()
        subject.onError(TestError.other)
        XCTAssertEqual(early.events, ["1", "error(boom)"])
        XCTAssertFalse(subject.hasObservers)

        let late = SubjectEventLog<Int>()
        let lateSubscription = late.subscribe(to: subject)
        XCTAssertEqual(late.events, ["error(boom)"])
        subscription.dispose()
        lateSubscription.dispose()
    }

    func testCompletionIsReplayedToLateSubscribers() {
        let subject = PublishSubject<String>()
        subject.onCompleted()
        subject.onNext("ignored")
        let log = SubjectEventLog<String>()
        log.subscribe(to: subject).dispose()
        XCTAssertEqual(log.events, ["completed"])
    }

    func testDisposedSubjectIgnoresEventsAndRejectsSubscribers() {
        let subject = PublishSubject<Int>()
        let log = SubjectEventLog<Int>()
        let subscription = log.subscribe(to: subject)
        subject.onNext(1)
        subject.dispose()
        subject.onNext(2)
        subject.onCompleted()
        XCTAssertTrue(subject.isDisposed)
        XCTAssertFalse(subject.hasObservers)
        XCTAssertEqual(log.events, ["1"])

        let late = SubjectEventLog<Int>()
        late.subscribe(to: subject).dispose()
        XCTAssertEqual(late.events, ["error(\(RxError.disposed))"])
        subscription.dispose()
    }

    func testAnObserverDisposedByAnotherDuringOnNextReceivesNothingMore() {
        let subject = PublishSubject<Int>()
        nonisolated(unsafe) var received: [String] = []
        nonisolated(unsafe) var second: Disposable?
        let first = subject.subscribe(onNext: { value in
            received.append("a\(value)")
            second?.dispose()
        })
        // A plain ObserverType, not a sink: the subject itself must stop delivering to it.
        second = subject.subscribe(AnyObserver<Int> { event in
            if case .next(let value) = event { received.append("b\(value)") }
        })
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(received, ["a1", "a2"])
        first.dispose()
        second = nil
    }

    func testAnObserverSubscribedDuringOnNextGetsOnlyLaterElements() {
        let subject = PublishSubject<Int>()
        nonisolated(unsafe) var received: [String] = []
        nonisolated(unsafe) var inner: Disposable?
        let outer = subject.subscribe(onNext: { value in
            received.append("outer\(value)")
            if inner == nil {
                inner = subject.subscribe(onNext: { received.append("inner\($0)") })
            }
        })
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(received, ["outer1", "outer2", "inner2"])
        outer.dispose()
        inner?.dispose()
    }

    func testTheSubjectObservesASourceAndForwardsItsEvents() {
        let subject = PublishSubject<Int>()
        let log = SubjectEventLog<Int>()
        let subscription = log.subscribe(to: subject.map { $0 * 10 })
        let source = Observable<Int>.create { observer in
            observer.onNext(1)
            observer.onNext(2)
            observer.onCompleted()
            return Disposables.create()
        }
        source.subscribe(subject).dispose()
        XCTAssertEqual(log.events, ["10", "20", "completed"])
        subscription.dispose()
    }

    func testDisposingASubscriptionTwiceOrAfterCompletionIsHarmless() {
        let subject = PublishSubject<Int>()
        let subscription = subject.subscribe(onNext: { _ in })
        let other = subject.subscribe(onNext: { _ in })
        subscription.dispose()
        subscription.dispose()
        XCTAssertTrue(subject.hasObservers)
        subject.onCompleted()
        other.dispose()
        XCTAssertFalse(subject.hasObservers)
    }

    func testOneHundredThousandSubscribersAreCheapToAddNotifyAndRemove() {
        let subject = PublishSubject<Int>()
        let count = 100_000
        nonisolated(unsafe) var received = 0
        let start = Date()
        var subscriptions: [Disposable] = []
        subscriptions.reserveCapacity(count)
        for _ in 0..<count {
            subscriptions.append(subject.subscribe(AnyObserver<Int> { _ in received += 1 }))
        }
        subject.onNext(1)
        XCTAssertEqual(received, count)
        // Remove every other one, then the rest from the back: holes, compaction, binary search.
        for index in stride(from: 0, to: count, by: 2) {
            subscriptions[index].dispose()
        }
        subject.onNext(2)
        XCTAssertEqual(received, count + count / 2)
        for index in stride(from: count - 1, through: 1, by: -2) {
            subscriptions[index].dispose()
        }
        XCTAssertFalse(subject.hasObservers)
        subject.onNext(3)
        XCTAssertEqual(received, count + count / 2)
        // Quadratic removal of 100,000 observers would take minutes, not seconds.
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
    }
}
