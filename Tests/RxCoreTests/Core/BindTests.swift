import RxCore
import RxTesting
import XCTest

/// `bind(to:)`: to observers (every event, optional observers too), and the binder forms that pass
/// the sequence to a function.
final class BindTests: RxTestCase {
    private let scheduler = TestScheduler(initialClock: 0)

    func testBindingToAnObserverForwardsEveryEvent() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(220, 2), .completed(230)])
        let observer = scheduler.createObserver(Int.self)
        scheduler.scheduleAt(200) { _ = xs.bind(to: observer) }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(210, 1), .next(220, 2), .completed(230)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 230)])
    }

    func testBindingToSeveralObserversForwardsEveryEventToEachInOrder() {
        let log = DisposeLog()
        let first = AnyObserver<Int> { log.record("first \($0)") }
        let second = AnyObserver<Int> { log.record("second \($0)") }
        Observable<Int>.concat(.just(1), .error(TestError.boom)).bind(to: first, second).dispose()
        XCTAssertEqual(log.names, ["first next(1)", "second next(1)", "first error(boom)", "second error(boom)"])
    }

    func testBindingToOptionalObserversWrapsTheElements() {
        let first = scheduler.createObserver(Int?.self)
        let second = scheduler.createObserver(Int?.self)
        _ = (Observable.just(1) as Observable<Int>).bind(to: first, second)
        XCTAssertEqual(first.events, [.next(0, 1), .completed(0)])
        XCTAssertEqual(second.events, [.next(0, 1), .completed(0)])
    }

    func testBindingAnIntegerLiteralSequenceToAnOptionalObserverIsNotAmbiguous() {
        let observer = scheduler.createObserver(Int?.self)
        _ = Observable.just(1).bind(to: observer)
        XCTAssertEqual(observer.events, [.next(0, 1), .completed(0)])
    }

    func testBindingToASubjectFeedsItsSubscribers() {
        let subject = PublishSubject<Int>()
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(subject)
        Observable.of(1, 2).bind(to: subject).dispose()
        XCTAssertEqual(recorder.events, [.next(1), .next(2), .completed])
        subscription.dispose()
    }

    func testDisposingTheBindingStopsTheEvents() {
        let xs = scheduler.createHotObservable([.next(210, 1), .next(230, 2)])
        let observer = scheduler.createObserver(Int.self)
        var binding: Disposable?
        scheduler.scheduleAt(200) { binding = xs.bind(to: observer) }
        scheduler.scheduleAt(220) { binding?.dispose() }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(210, 1)])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 220)])
    }

    func testABinderFunctionReceivesTheSequence() {
        let log = DisposeLog()
        let binder: (Observable<Int>) -> Disposable = { source in
            source.subscribe(onNext: { log.record("\($0)") })
        }
        let subscription = Observable.of(1, 2).bind(to: binder)
        XCTAssertEqual(log.names, ["1", "2"])
        subscription.dispose()
        XCTAssertEqual(Observable.just(3).bind(to: { (source: Observable<Int>) in "bound" }), "bound")
    }

    func testACurriedBinderReceivesTheSequenceThenTheArgument() {
        let log = DisposeLog()
        let binder: (Observable<Int>) -> (String) -> Disposable = { source in
            { prefix in source.subscribe(onNext: { log.record("\(prefix)\($0)") }) }
        }
        let subscription = Observable.of(1, 2).bind(to: binder, curriedArgument: "#")
        XCTAssertEqual(log.names, ["#1", "#2"])
        subscription.dispose()
    }
}
