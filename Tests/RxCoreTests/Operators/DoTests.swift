import RxCore
import RxTesting
import XCTest

final class DoTests: RxTestCase {
    func testOnDisposeComesAfterTheSourceDisposedAndOnSubscribedWhenTheSourceEndsDuringSubscribe() {
        nonisolated(unsafe) var log: [String] = []
        let source = Observable<Int>.create { observer in
            observer.onCompleted()
            return Disposables.create { log.append("sourceDispose") }
        }
        _ = source.do(
            onSubscribe: { log.append("doOnSubscribe") },
            onSubscribed: { log.append("doOnSubscribed") },
            onDispose: { log.append("doOnDispose") }
        ).subscribe()
        XCTAssertEqual(log, ["doOnSubscribe", "sourceDispose", "doOnSubscribed", "doOnDispose"])
    }

    func testOnDisposeComesAfterTheSourceDisposedWhenTheSourceEndsLater() {
        nonisolated(unsafe) var log: [String] = []
        let subject = PublishSubject<Int>()
        let source = Observable<Int>.create { observer in
            let inner = subject.subscribe(observer)
            return Disposables.create {
                inner.dispose()
                log.append("sourceDispose")
            }
        }
        _ = source.do(
            onSubscribed: { log.append("doOnSubscribed") },
            onDispose: { log.append("doOnDispose") }
        ).subscribe()
        subject.onCompleted()
        XCTAssertEqual(log, ["doOnSubscribed", "sourceDispose", "doOnDispose"])
    }

    func testOnDisposeRunsOnceWhenDisposedByTheSubscriberInVirtualTime() {
        let scheduler = TestScheduler(initialClock: 0)
        let xs = scheduler.createHotObservable([.next(210, 1), .next(310, 2)])
        nonisolated(unsafe) var disposedAt: [TestTime] = []
        let res = scheduler.start(disposed: 300) {
            xs.do(onDispose: { disposedAt.append(scheduler.clock) })
        }
        XCTAssertEqual(res.events, [.next(210, 1)])
        XCTAssertEqual(disposedAt, [300])
        XCTAssertEqual(xs.subscriptions, [Subscription(200, 300)])
    }

    func testHandlersRunAroundEachEventInOrder() {
        nonisolated(unsafe) var log: [String] = []
        let source = Observable.of(1, 2).do(
            onNext: { log.append("onNext \($0)") },
            afterNext: { log.append("afterNext \($0)") },
            onCompleted: { log.append("onCompleted") },
            afterCompleted: { log.append("afterCompleted") },
            onSubscribe: { log.append("onSubscribe") },
            onSubscribed: { log.append("onSubscribed") },
            onDispose: { log.append("onDispose") }
        )
        let subscription = source.subscribe(
            onNext: { log.append("next \($0)") },
            onCompleted: { log.append("completed") }
        )
        subscription.dispose()
        XCTAssertEqual(log, [
            "onSubscribe",
            "onNext 1", "next 1", "afterNext 1",
            "onNext 2", "next 2", "afterNext 2",
            "onCompleted", "completed", "afterCompleted",
            "onSubscribed", "onDispose",
        ])
    }

    func testErrorHandlersRunAroundTheError() {
        nonisolated(unsafe) var log: [String] = []
        let subscription = Observable<Int>.error(TestError.boom).do(
            onError: { log.append("onError \($0)") },
            afterError: { log.append("afterError \($0)") },
            onDispose: { log.append("onDispose") }
        )
        .subscribe(onError: { log.append("error \($0)") })
        subscription.dispose()
        XCTAssertEqual(log, ["onError boom", "error boom", "afterError boom", "onDispose"])
    }

    func testOnDisposeRunsOnceOnExplicitDisposeAndDisposesTheSource() {
        let source = DrivenSource<Int>()
        nonisolated(unsafe) var disposals = 0
        let recorder = Recorder<Int>()
        let subscription = recorder.subscribe(source.observable.do(onDispose: { disposals += 1 }))
        source.onNext(1)
        XCTAssertEqual(disposals, 0)
        subscription.dispose()
        subscription.dispose()
        XCTAssertEqual(disposals, 1)
        XCTAssertEqual(source.observerCount, 0)
        XCTAssertEqual(recorder.events, [.next(1)])
    }

    func testAThrowingOnNextFailsTheSequenceWithoutDeliveringTheElement() {
        assertThrowingClosureFails { $0.do(onNext: { _ = try passOrThrowAt2($0) }) }
        XCTAssertEqual(
            collect(Observable.of(1, 2, 3).do(onNext: { _ = try passOrThrowAt2($0) })),
            [.next(1), .error(TestError.boom)]
        )
    }

    func testAThrowingAfterNextFailsTheSequenceAfterDeliveringTheElement() {
        assertThrowingClosureFails { $0.do(afterNext: { _ = try passOrThrowAt2($0) }) }
        XCTAssertEqual(
            collect(Observable.of(1, 2, 3).do(afterNext: { _ = try passOrThrowAt2($0) })),
            [.next(1), .next(2), .error(TestError.boom)]
        )
    }

    func testAThrowingOnErrorReplacesTheErrorAndAThrowingOnCompletedReplacesCompletion() {
        XCTAssertEqual(
            collect(Observable<Int>.error(TestError.boom).do(onError: { _ in throw TestError.other })),
            [.error(TestError.other)]
        )
        XCTAssertEqual(
            collect(Observable<Int>.empty().do(onCompleted: { throw TestError.other })),
            [.error(TestError.other)]
        )
    }

    func testErrorsFromAfterHandlersAreDroppedAfterTheTerminalEvent() {
        XCTAssertEqual(
            collect(Observable<Int>.empty().do(afterCompleted: { throw TestError.other })),
            [.completed]
        )
        XCTAssertEqual(
            collect(Observable<Int>.error(TestError.boom).do(afterError: { _ in throw TestError.other })),
            [.error(TestError.boom)]
        )
    }

    func testHandlersDoNotRunForEventsAfterTheTerminalOne() {
        nonisolated(unsafe) var nexts = 0
        nonisolated(unsafe) var terminals = 0
        let source = Observable<Int>.create { observer in
            observer.onCompleted()
            observer.onNext(1)
            observer.onError(TestError.boom)
            return Disposables.create()
        }
        _ = collect(source.do(onNext: { _ in nexts += 1 }, onError: { _ in terminals += 1 }, onCompleted: { terminals += 1 }))
        XCTAssertEqual(nexts, 0)
        XCTAssertEqual(terminals, 1)
    }

    func testConformance() {
        assertOperatorBasics { $0.do(onNext: { _ in }, onError: { _ in }, onDispose: {}) }
    }
}
