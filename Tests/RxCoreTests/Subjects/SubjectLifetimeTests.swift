import RxCore
import RxTesting
import XCTest

/// A subject that nothing references any more is freed with everything subscribed to it, even if
/// those subscriptions were never disposed (RxSwift frees them too; a daemon would leak otherwise).
final class SubjectLifetimeTests: RxTestCase {
    func testAPublishSubjectWithUndisposedSubscribersIsFreedWhenNothingReferencesIt() {
        weak var weakSubject: PublishSubject<Int>?
        nonisolated(unsafe) var received: [Int] = []
        do {
            let subject = PublishSubject<Int>()
            weakSubject = subject
            _ = subject.subscribe(onNext: { received.append($0) })
            _ = subject.map { $0 * 10 }.filter { $0 > 0 }.subscribe(onNext: { received.append($0) })
            _ = subject.subscribe(AnyObserver<Int> { _ in })
            subject.onNext(1)
        }
        XCTAssertNil(weakSubject)
        XCTAssertEqual(received, [1, 10])
    }

    func testABehaviorSubjectWithUndisposedSubscribersIsFreedWhenNothingReferencesIt() {
        weak var weakSubject: BehaviorSubject<Int>?
        nonisolated(unsafe) var received: [Int] = []
        do {
            let subject = BehaviorSubject(value: 0)
            weakSubject = subject
            _ = subject.subscribe(onNext: { received.append($0) })
            _ = subject.map { $0 + 100 }.subscribe(onNext: { received.append($0) })
            subject.onNext(1)
        }
        XCTAssertNil(weakSubject)
        XCTAssertEqual(received, [0, 100, 1, 101])
    }

    func testAReplaySubjectWithUndisposedSubscribersIsFreedWhenNothingReferencesIt() {
        weak var weakSubject: ReplaySubject<Int>?
        nonisolated(unsafe) var received: [Int] = []
        do {
            let subject = ReplaySubject<Int>.create(bufferSize: 2)
            weakSubject = subject
            subject.onNext(1)
            _ = subject.subscribe(onNext: { received.append($0) })
            _ = subject.map { -$0 }.subscribe(onNext: { received.append($0) })
            subject.onNext(2)
        }
        XCTAssertNil(weakSubject)
        XCTAssertEqual(received, [1, -1, 2, -2])
    }

    func testDisposingASubscriptionAfterItsSubjectWasFreedIsHarmless() {
        var subscription: Disposable?
        do {
            let subject = PublishSubject<Int>()
            subscription = subject.subscribe(onNext: { _ in })
        }
        subscription?.dispose()
        subscription = nil
    }

    func testAReferencedSubjectKeepsDeliveringToUndisposedSubscribers() {
        let subject = PublishSubject<Int>()
        nonisolated(unsafe) var received: [Int] = []
        do {
            _ = subject.map { $0 + 1 }.subscribe(onNext: { received.append($0) })
        }
        subject.onNext(1)
        subject.onCompleted()
        XCTAssertEqual(received, [2])
    }
}
