import Foundation
import RxCore
import RxTesting
import XCTest

final class ReplaySubjectTests: RxTestCase {
    func testReplaysTheLastBufferSizeElementsOldestFirst() {
        let subject = ReplaySubject<Int>.create(bufferSize: 3)
        for value in 1...10 { subject.onNext(value) }
        let log = SubjectEventLog<Int>()
        let subscription = log.subscribe(to: subject)
        subject.onNext(11)
        XCTAssertEqual(log.events, ["8", "9", "10", "11"])
        subscription.dispose()
    }

    func testBufferSizeOneReplaysTheLatestElement() {
        let subject = ReplaySubject<String>.create(bufferSize: 1)
        let empty = SubjectEventLog<String>()
        empty.subscribe(to: subject).dispose()
        subject.onNext("a")
        subject.onNext("b")
        let log = SubjectEventLog<String>()
        log.subscribe(to: subject).dispose()
        XCTAssertEqual(empty.events, [])
        XCTAssertEqual(log.events, ["b"])
    }

    func testAnUnboundSubjectReplaysEverything() {
        let subject = ReplaySubject<Int>.createUnbound()
        for value in 0..<1_000 { subject.onNext(value) }
        nonisolated(unsafe) var received: [Int] = []
        subject.subscribe(onNext: { received.append($0) }).dispose()
        XCTAssertEqual(received, Array(0..<1_000))
    }

    func testBufferSizeZeroReplaysOnlyTheTerminalEvent() {
        let subject = ReplaySubject<Int>.create(bufferSize: 0)
        subject.onNext(1)
        let log = SubjectEventLog<Int>()
        log.subscribe(to: subject).dispose()
        subject.onCompleted()
        let late = SubjectEventLog<Int>()
        late.subscribe(to: subject).dispose()
        XCTAssertEqual(log.events, [])
        XCTAssertEqual(late.events, ["completed"])
    }

    func testALateSubscriberAfterTerminationGetsTheBufferThenTheTerminalEvent() {
        let subject = ReplaySubject<Int>.create(bufferSize: 2)
        let early = SubjectEventLog<Int>()
        let earlySubscription = early.subscribe(to: subject)
        subject.onNext(1)
        subject.onNext(2)
        subject.onNext(3)
        subject.onError(TestError.boom)
        subject.onNext(4)
        let late = SubjectEventLog<Int>()
        late.subscribe(to: subject).dispose()
        XCTAssertEqual(early.events, ["1", "2", "3", "error(boom)"])
        XCTAssertEqual(late.events, ["2", "3", "error(boom)"])
        earlySubscription.dispose()
    }

    func testDisposeDropsObserversAndBufferAndRejectsSubscribers() {
        let subject = ReplaySubject<Int>.create(bufferSize: 5)
        subject.onNext(1)
        let log = SubjectEventLog<Int>()
        let subscription = log.subscribe(to: subject)
        XCTAssertTrue(subject.hasObservers)
        subject.dispose()
        subject.onNext(2)
        XCTAssertFalse(subject.hasObservers)
        XCTAssertTrue(subject.isDisposed)
        let late = SubjectEventLog<Int>()
        late.subscribe(to: subject).dispose()
        XCTAssertEqual(log.events, ["1"])
        XCTAssertEqual(late.events, ["error(\(RxError.disposed))"])
        subscription.dispose()
    }

    func testEventsSentDuringTheReplayArriveAfterItInOrder() {
        let subject = ReplaySubject<Int>.create(bufferSize: 3)
        subject.onNext(1)
        subject.onNext(2)
        nonisolated(unsafe) var received: [Int] = []
        let subscription = subject.subscribe(onNext: { value in
            received.append(value)
            if value == 1 { subject.onNext(3) }
            if value == 3 { subject.onCompleted() }
        }, onCompleted: { received.append(-1) })
        XCTAssertEqual(received, [1, 2, 3, -1])
        subscription.dispose()
    }

    func testSubscribersRacingTheSenderSeeTheReplayThenAnUnbrokenRun() {
        let subject = ReplaySubject<Int>.create(bufferSize: 4)
        let runs = LockedBox<[[Int]]>([])
        emitContinuously({ subject.onNext($0) }, while: {
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
        subject.onCompleted()
        XCTAssertEqual(runs.value.count, 200)
        for run in runs.value {
            let first = run.first ?? 0
            XCTAssertGreaterThanOrEqual(run.count, 1, "the replay is always delivered")
            XCTAssertEqual(run, Array(first..<(first + run.count)), "gap, duplicate or reordering")
        }
        XCTAssertFalse(subject.hasObservers)
    }
}
