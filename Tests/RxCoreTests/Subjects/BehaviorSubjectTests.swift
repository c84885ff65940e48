import Foundation
import RxCore
import RxTesting
import XCTest

final class BehaviorSubjectTests: RxTestCase {
    func testANewSubscriberGetsTheCurrentValueThenLaterOnes() {
        let subject = BehaviorSubject(value: 1)
        let first = SubjectEventLog<Int>()
        let firstSubscription = first.subscribe(to: subject)
        subject.onNext(2)
        let second = SubjectEventLog<Int>()
        let secondSubscription = second.subscribe(to: subject)
        subject.onNext(3)
        XCTAssertEqual(first.events, ["1", "2", "3"])
        XCTAssertEqual(second.events, ["2", "3"])
        firstSubscription.dispose()
        secondSubscription.dispose()
    }

    func testValueFollowsTheSubjectThroughItsLife() throws {
        let subject = BehaviorSubject(value: "a")
        XCTAssertEqual(try subject.value(), "a")
        subject.onNext("b")
        XCTAssertEqual(try subject.value(), "b")
        subject.onCompleted()
        subject.onNext("c")
        XCTAssertEqual(try subject.value(), "b", "the last value survives completion")
        subject.dispose()
        XCTAssertThrowsError(try subject.value()) { XCTAssertEqual($0 as? RxError, .disposed) }
    }

    func testValueThrowsTheErrorTheSubjectFailedWith() {
        let subject = BehaviorSubject(value: 0)
        subject.onError(TestError.boom)
        XCTAssertThrowsError(try subject.value()) { XCTAssertEqual($0 as? TestError, .boom) }
    }

    func testALateSubscriberToATerminatedSubjectGetsOnlyTheTerminalEvent() {
        let subject = BehaviorSubject(value: 0)
        subject.onNext(1)
        subject.onCompleted()
        let log = SubjectEventLog<Int>()
        log.subscribe(to: subject).dispose()
        XCTAssertEqual(log.events, ["completed"])
        XCTAssertFalse(subject.hasObservers)
    }

    func testDisposedSubjectRejectsSubscribers() {
        let subject = BehaviorSubject(value: 0)
        subject.dispose()
        subject.onNext(1)
        let log = SubjectEventLog<Int>()
        log.subscribe(to: subject).dispose()
        XCTAssertEqual(log.events, ["error(\(RxError.disposed))"])
        XCTAssertTrue(subject.isDisposed)
    }

    func testAnElementSentWhileASubscriberReceivesTheCurrentValueFollowsIt() {
        let subject = BehaviorSubject(value: 0)
        nonisolated(unsafe) var received: [Int] = []
        let subscription = subject.subscribe(onNext: { value in
            received.append(value)
            if value < 3 { subject.onNext(value + 1) }
        })
        subject.onNext(10)
        XCTAssertEqual(received, [0, 1, 2, 3, 10])
        subscription.dispose()
    }

    func testAnObserverRemovedWhileCatchingUpGetsNothingMore() {
        let subject = BehaviorSubject(value: 0)
        nonisolated(unsafe) var received: [Int] = []
        let subscription = subject.subscribe(onNext: { value in
            received.append(value)
            subject.onNext(value + 1)
            subject.dispose()
        })
        XCTAssertEqual(received, [0], "the queued 1 is dropped once the subject is disposed")
        XCTAssertFalse(subject.hasObservers)
        subscription.dispose()
    }

    func testAnObserverThatDisposesItselfReceivesNothingAfterwards() {
        let subject = BehaviorSubject(value: 0)
        nonisolated(unsafe) var received: [Int] = []
        nonisolated(unsafe) var subscription: Disposable?
        subscription = subject.subscribe(onNext: { value in
            received.append(value)
            guard value == 5 else { return }
            subject.onNext(6)
            subscription?.dispose()
        })
        subject.onNext(5)
        subject.onNext(7)
        // A live observer gets a re-entrant element at once (recursively), as in RxSwift; nothing
        // after its dispose.
        XCTAssertEqual(received, [0, 5, 6])
        XCTAssertFalse(subject.hasObservers)
        subscription = nil
    }

    func testSubscribersRacingTheSenderSeeAnUnbrokenIncreasingRun() {
        let subject = BehaviorSubject(value: 0)
        let runs = LockedBox<[[Int]]>([])
        emitContinuously({ subject.onNext($0 + 1) }, while: {
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<25 {
                    // Delivery may still be running on the sender's thread after dispose returns.
                    let seen = LockedBox<[Int]>([])
                    let subscription = subject.subscribe(onNext: { value in seen.mutate { $0.append(value) } })
                    Thread.sleep(forTimeInterval: 0.0002)
                    subscription.dispose()
                    runs.mutate { $0.append(seen.value) }
                }
            }
        })
        XCTAssertEqual(runs.value.count, 200)
        for run in runs.value {
            let first = run.first ?? -1
            XCTAssertFalse(run.isEmpty, "the current value is always delivered")
            XCTAssertEqual(run, Array(first..<(first + run.count)), "gap, duplicate or reordering")
        }
        XCTAssertGreaterThan(Set(runs.value.compactMap(\.first)).count, 1, "the sender made progress meanwhile")
    }
}
