import Foundation
import RxCore
import RxTesting
import XCTest

final class SubjectRaceTests: RxTestCase {
    func testSubscribeAndDisposeRacingOnNextNeitherCrashNorLeak() {
        let subject = PublishSubject<Int>()
        let delivered = LockedBox(0)
        emitContinuously({ subject.onNext($0) }, while: {
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<300 {
                    let subscription = subject
                        .map { $0 + 1 }
                        .subscribe(onNext: { _ in delivered.mutate { $0 += 1 } })
                    subscription.dispose()
                }
            }
        })
        subject.onCompleted()
        XCTAssertFalse(subject.hasObservers)
    }

    func testTheSendingThreadNeverDeliversToASubscriptionItHasDisposed() {
        let subject = PublishSubject<Int>()
        let handoff = LockedBox<[(Disposable, LockedBox<Bool>)]>([])
        let violations = LockedBox(0)
        let delivered = LockedBox(0)
        let sendAndDispose: @Sendable (Int) -> Void = { value in
            subject.onNext(value)
            var taken: [(Disposable, LockedBox<Bool>)] = []
            handoff.mutate { swap(&$0, &taken) }
            for (subscription, disposedHere) in taken {
                subscription.dispose()
                disposedHere.mutate { $0 = true }
                subject.onNext(value)
            }
        }
        emitContinuously(sendAndDispose, while: {
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<200 {
                    let disposedHere = LockedBox(false)
                    // A plain observer, so that only the subject's own check can hold the line.
                    let subscription = subject.subscribe(AnyObserver<Int> { _ in
                        delivered.mutate { $0 += 1 }
                        if disposedHere.value { violations.mutate { $0 += 1 } }
                    })
                    handoff.mutate { $0.append((subscription, disposedHere)) }
                }
            }
        })
        sendAndDispose(-1)
        XCTAssertEqual(violations.value, 0)
        XCTAssertGreaterThan(delivered.value, 0)
        XCTAssertFalse(subject.hasObservers)
    }

    func testDisposingTheSubjectRacingSubscribersAndTheSenderIsSafe() {
        for _ in 0..<20 {
            let subject = ReplaySubject<Int>.create(bufferSize: 2)
            let subscriptions = LockedBox<[Disposable]>([])
            DispatchQueue.concurrentPerform(iterations: 6) { iteration in
                switch iteration {
                case 0:
                    for value in 0..<2_000 { subject.onNext(value) }
                case 1:
                    Thread.sleep(forTimeInterval: 0.001)
                    subject.dispose()
                default:
                    for _ in 0..<50 {
                        let subscription = subject.subscribe(onNext: { _ in }, onError: { _ in })
                        subscriptions.mutate { $0.append(subscription) }
                    }
                }
            }
            XCTAssertTrue(subject.isDisposed)
            XCTAssertFalse(subject.hasObservers)
            subscriptions.value.forEach { $0.dispose() }
        }
    }

    func testConcurrentSubscribersAllReceiveEveryLaterElement() {
        let subject = PublishSubject<Int>()
        let subscriptions = LockedBox<[Disposable]>([])
        let totals = LockedBox(0)
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<250 {
                let subscription = subject.subscribe(onNext: { value in totals.mutate { $0 += value } })
                subscriptions.mutate { $0.append(subscription) }
            }
        }
        subject.onNext(1)
        subject.onNext(2)
        XCTAssertEqual(totals.value, 2_000 * 3)
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let mine = subscriptions.value.enumerated().filter { $0.offset % 8 == index }
            mine.forEach { $0.element.dispose() }
        }
        XCTAssertFalse(subject.hasObservers)
    }
}
