import Foundation
import RxCore
import RxTesting
import XCTest

/// A hot-ish source for sharing tests: counts subscriptions and disposals and exposes the
/// observers of the live subscriptions.
private final class CountingSource: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in LockedBoxes.
    let subscriptions = LockedBox(0)
    let disposals = LockedBox(0)
    private let observers = LockedBox<[Int: AnyObserver<Int>]>([:])

    var observable: Observable<Int> {
        Observable.create { [self] observer in
            nonisolated(unsafe) var key = 0
            subscriptions.mutate { count in
                count += 1
                key = count
            }
            observers.mutate { $0[key] = observer }
            return Disposables.create { [self] in
                observers.mutate { $0[key] = nil }
                disposals.mutate { $0 += 1 }
            }
        }
    }

    func send(_ value: Int) {
        observers.value.values.forEach { $0.onNext(value) }
    }

    func complete() {
        observers.value.values.forEach { $0.onCompleted() }
    }
}

final class ShareTests: RxTestCase {
    func testSubscribersShareOneSubscriptionUntilTheLastLeavesThenReconnect() {
        let source = CountingSource()
        let shared = source.observable.share()
        let first = SubjectEventLog<Int>()
        let second = SubjectEventLog<Int>()
        let firstSubscription = first.subscribe(to: shared)
        source.send(1)
        let secondSubscription = second.subscribe(to: shared)
        source.send(2)
        XCTAssertEqual(source.subscriptions.value, 1)
        firstSubscription.dispose()
        source.send(3)
        XCTAssertEqual(source.disposals.value, 0)
        secondSubscription.dispose()
        XCTAssertEqual(source.disposals.value, 1)
        XCTAssertEqual(first.events, ["1", "2"])
        XCTAssertEqual(second.events, ["2", "3"])

        let third = SubjectEventLog<Int>()
        let thirdSubscription = third.subscribe(to: shared)
        source.send(4)
        thirdSubscription.dispose()
        XCTAssertEqual(source.subscriptions.value, 2, "the next subscriber reconnects")
        XCTAssertEqual(source.disposals.value, 2)
        XCTAssertEqual(third.events, ["4"])
    }

    func testReplayWhileConnectedStartsEachConnectionWithAnEmptyBuffer() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 2)
        let first = SubjectEventLog<Int>()
        let firstSubscription = first.subscribe(to: shared)
        source.send(1)
        source.send(2)
        source.send(3)
        let late = SubjectEventLog<Int>()
        let lateSubscription = late.subscribe(to: shared)
        firstSubscription.dispose()
        lateSubscription.dispose()

        let again = SubjectEventLog<Int>()
        let againSubscription = again.subscribe(to: shared)
        source.send(9)
        againSubscription.dispose()
        XCTAssertEqual(late.events, ["2", "3"])
        XCTAssertEqual(again.events, ["9"], "no stale replay from the previous connection")
        XCTAssertEqual(source.subscriptions.value, 2)
    }

    func testReplayForeverKeepsTheBufferAcrossConnections() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 1, scope: .forever)
        let first = SubjectEventLog<Int>()
        let firstSubscription = first.subscribe(to: shared)
        source.send(1)
        firstSubscription.dispose()
        XCTAssertEqual(source.disposals.value, 1)

        let again = SubjectEventLog<Int>()
        let againSubscription = again.subscribe(to: shared)
        source.send(2)
        againSubscription.dispose()
        XCTAssertEqual(again.events, ["1", "2"])
        XCTAssertEqual(source.subscriptions.value, 2)
    }

    func testAfterTheSourceCompletesWhileConnectedResubscribesButForeverReplaysTheEnd() {
        let subscriptions = LockedBox(0)
        let source = Observable<Int>.create { observer in
            subscriptions.mutate { $0 += 1 }
            observer.onNext(subscriptions.value)
            observer.onCompleted()
            return Disposables.create()
        }
        let whileConnected = source.share(replay: 1)
        let first = SubjectEventLog<Int>()
        let second = SubjectEventLog<Int>()
        first.subscribe(to: whileConnected).dispose()
        second.subscribe(to: whileConnected).dispose()
        XCTAssertEqual(first.events, ["1", "completed"])
        XCTAssertEqual(second.events, ["2", "completed"])

        let forever = source.share(replay: 1, scope: .forever)
        let third = SubjectEventLog<Int>()
        let fourth = SubjectEventLog<Int>()
        third.subscribe(to: forever).dispose()
        fourth.subscribe(to: forever).dispose()
        XCTAssertEqual(third.events, ["3", "completed"])
        XCTAssertEqual(fourth.events, ["3", "completed"])
        XCTAssertEqual(subscriptions.value, 3, "a terminated forever subject does not rerun the source")
    }

    func testASubscriberJoiningDuringASynchronousEmissionGetsTheRest() {
        let shared = Observable<Int>.create { observer in
            (1...4).forEach(observer.onNext)
            observer.onCompleted()
            return Disposables.create()
        }
        .share()
        let inner = SubjectEventLog<Int>()
        nonisolated(unsafe) var innerSubscription: Disposable?
        nonisolated(unsafe) var outer: [Int] = []
        let outerSubscription = shared.subscribe(onNext: { value in
            outer.append(value)
            if value == 2 { innerSubscription = inner.subscribe(to: shared) }
        })
        XCTAssertEqual(outer, [1, 2, 3, 4])
        XCTAssertEqual(inner.events, ["3", "4", "completed"])
        outerSubscription.dispose()
        innerSubscription?.dispose()
    }

    func testPublishConnectsOnlyWhenAskedAndDisconnectsOnDispose() {
        let source = CountingSource()
        let published = source.observable.publish()
        let log = SubjectEventLog<Int>()
        let subscription = log.subscribe(to: published)
        source.send(0)
        XCTAssertEqual(source.subscriptions.value, 0)
        let connection = published.connect()
        let sameConnection = published.connect()
        source.send(1)
        connection.dispose()
        source.send(2)
        XCTAssertEqual(source.subscriptions.value, 1)
        XCTAssertEqual(source.disposals.value, 1)
        XCTAssertEqual(log.events, ["1"])
        sameConnection.dispose()
        subscription.dispose()
    }

    func testReplayConnectableReplaysToLateSubscribers() {
        let replayed = Observable<Int>.create { observer in
            (1...5).forEach(observer.onNext)
            return Disposables.create()
        }
        .replay(2)
        let connection = replayed.connect()
        let log = SubjectEventLog<Int>()
        log.subscribe(to: replayed).dispose()
        connection.dispose()
        XCTAssertEqual(log.events, ["4", "5"])
    }

    func testMulticastWithMakeSubjectUsesANewSubjectPerConnection() {
        let made = LockedBox(0)
        let connectable = Observable<Int>.just(7).multicast(makeSubject: { () -> ReplaySubject<Int> in
            made.mutate { $0 += 1 }
            return ReplaySubject.create(bufferSize: 1)
        })
        let first = SubjectEventLog<Int>()
        let firstSubscription = first.subscribe(to: connectable)
        connectable.connect().dispose()
        let second = SubjectEventLog<Int>()
        let secondSubscription = second.subscribe(to: connectable)
        XCTAssertEqual(first.events, ["7", "completed"])
        XCTAssertEqual(second.events, [], "a new connection's subject, not yet connected")
        XCTAssertEqual(made.value, 2)
        firstSubscription.dispose()
        secondSubscription.dispose()
    }

    func testConcurrentSubscribersShareExactlyOneSourceSubscription() {
        for _ in 0..<20 {
            let source = CountingSource()
            let shared = source.observable.share()
            let subscriptions = LockedBox<[Disposable]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<20 {
                    let subscription = shared.subscribe(onNext: { _ in })
                    subscriptions.mutate { $0.append(subscription) }
                }
            }
            XCTAssertEqual(source.subscriptions.value, 1)
            let all = subscriptions.value
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                for (offset, subscription) in all.enumerated() where offset % 8 == index {
                    subscription.dispose()
                }
            }
            XCTAssertEqual(source.disposals.value, 1)
        }
    }

    func testChurningSubscribersDisposeEverySourceSubscriptionTheyCaused() {
        let source = CountingSource()
        let shared = source.observable.share(replay: 1)
        let received = LockedBox(0)
        emitContinuously({ source.send($0) }, while: {
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<200 {
                    let subscription = shared.subscribe(onNext: { _ in received.mutate { $0 += 1 } })
                    subscription.dispose()
                }
            }
        })
        XCTAssertGreaterThanOrEqual(source.subscriptions.value, 1)
        XCTAssertEqual(source.subscriptions.value, source.disposals.value)
    }
}
