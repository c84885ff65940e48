import RxCore
import RxTesting
import XCTest

/// `bind(to:)` relays (publish, behavior, replay, and their optional-element forms) forwards the
/// elements only: completion is ignored, and an error goes to `Hooks.defaultErrorHandler` instead
/// of trapping.
final class RelayBindTests: RxTestCase {
    // MARK: PublishRelay

    func testBindingToPublishRelaysSendsEachElementToEach() {
        let first = PublishRelay<Int>()
        let second = PublishRelay<Int>()
        let firstEvents = Recorder<Int>()
        let secondEvents = Recorder<Int>()
        let subscriptions = [firstEvents.subscribe(first), secondEvents.subscribe(second)]
        Observable.of(1, 2).bind(to: first, second).dispose()
        XCTAssertEqual(firstEvents.events, [.next(1), .next(2)], "the relay must not complete")
        XCTAssertEqual(secondEvents.events, [.next(1), .next(2)])
        subscriptions.forEach { $0.dispose() }
    }

    func testBindingToOptionalPublishRelaysWrapsTheElements() {
        let first = PublishRelay<Int?>()
        let second = PublishRelay<Int?>()
        let firstEvents = Recorder<Int?>()
        let secondEvents = Recorder<Int?>()
        let subscriptions = [firstEvents.subscribe(first), secondEvents.subscribe(second)]
        _ = (Observable.just(1) as Observable<Int>).bind(to: first, second)
        XCTAssertEqual(firstEvents.events, [.next(1)])
        XCTAssertEqual(secondEvents.events, [.next(1)])
        subscriptions.forEach { $0.dispose() }
    }

    func testBindingAnIntegerLiteralSequenceToAnOptionalPublishRelayIsNotAmbiguous() {
        let relay = PublishRelay<Int?>()
        let events = Recorder<Int?>()
        let subscription = events.subscribe(relay)
        _ = Observable.just(1).bind(to: relay)
        XCTAssertEqual(events.events, [.next(1)])
        subscription.dispose()
    }

    // MARK: BehaviorRelay

    func testBindingToBehaviorRelaysSetsTheirValue() {
        let first = BehaviorRelay(value: 0)
        let second = BehaviorRelay(value: 0)
        Observable.of(1, 2).bind(to: first, second).dispose()
        XCTAssertEqual(first.value, 2)
        XCTAssertEqual(second.value, 2)
    }

    func testBindingToOptionalBehaviorRelaysWrapsTheElements() {
        let first = BehaviorRelay<Int?>(value: nil)
        let second = BehaviorRelay<Int?>(value: 0)
        _ = (Observable.just(1) as Observable<Int>).bind(to: first, second)
        XCTAssertEqual(first.value, 1)
        XCTAssertEqual(second.value, 1)
        _ = Observable.just(5).bind(to: first)
        XCTAssertEqual(first.value, 5)
    }

    // MARK: ReplayRelay

    func testBindingToReplayRelaysLetsLaterSubscribersReplay() {
        let first = ReplayRelay<Int>.create(bufferSize: 1)
        let second = ReplayRelay<Int>.createUnbound()
        Observable.of(1, 2).bind(to: first, second).dispose()
        XCTAssertEqual(collect(first.asObservable().take(1)), [.next(2), .completed])
        XCTAssertEqual(collect(second.asObservable().take(2)), [.next(1), .next(2), .completed])
    }

    func testBindingToOptionalReplayRelaysWrapsTheElements() {
        let first = ReplayRelay<Int?>.create(bufferSize: 1)
        let second = ReplayRelay<Int?>.create(bufferSize: 1)
        _ = (Observable.just(1) as Observable<Int>).bind(to: first, second)
        _ = Observable.just(2).bind(to: second)
        XCTAssertEqual(collect(first.asObservable().take(1)), [.next(1), .completed])
        XCTAssertEqual(collect(second.asObservable().take(1)), [.next(2), .completed])
    }

    // MARK: Terminal events

    func testAnErrorBoundToARelayGoesToTheDefaultErrorHandlerAndTheRelayLivesOn() {
        withProbeHandler { probe in
            let publish = PublishRelay<Int>()
            let behavior = BehaviorRelay(value: 0)
            let replay = ReplayRelay<Int>.create(bufferSize: 1)
            let events = Recorder<Int>()
            let subscription = events.subscribe(publish)
            Observable<Int>.concat(.just(1), .error(probe.error(1))).bind(to: publish).dispose()
            Observable<Int>.concat(.just(2), .error(probe.error(2))).bind(to: behavior).dispose()
            Observable<Int>.concat(.just(3), .error(probe.error(3))).bind(to: replay).dispose()
            Observable<Int?>.error(probe.error(4)).bind(to: PublishRelay<Int?>()).dispose()
            XCTAssertEqual(probe.reported.map(\.id), [1, 2, 3, 4])
            XCTAssertEqual(events.events, [.next(1)], "the relay's subscribers saw the error")
            publish.accept(10)
            XCTAssertEqual(events.events, [.next(1), .next(10)], "the relay stopped after the error")
            XCTAssertEqual(behavior.value, 2)
            subscription.dispose()
        }
    }

    func testTheBindingsCallStackIsReportedWhenRecording() {
        withProbeHandler { probe in
            Hooks.recordCallStackOnError = true
            Hooks.customCaptureSubscriptionCallstack = { ["bound here"] }
            let source = PublishSubject<Int>()
            let binding = source.bind(to: PublishRelay<Int>())
            Hooks.customCaptureSubscriptionCallstack = { ["elsewhere"] }
            source.onError(probe.error(1))
            XCTAssertEqual(probe.reported.map(\.callStack), [["bound here"]])
            binding.dispose()
        }
    }

    func testCompletionIsIgnoredAndReleasesTheBinding() {
        let relay = PublishRelay<Int>()
        let events = Recorder<Int>()
        let subscription = events.subscribe(relay)
        let source = DrivenSource<Int>()
        let binding = source.observable.bind(to: relay)
        source.onNext(1)
        source.onCompleted()
        XCTAssertEqual(source.observerCount, 0, "the binding outlived its source")
        XCTAssertEqual(events.events, [.next(1)])
        relay.accept(2)
        XCTAssertEqual(events.events, [.next(1), .next(2)])
        binding.dispose()
        subscription.dispose()
    }

    func testDisposingTheBindingStopsTheElements() {
        let relay = BehaviorRelay(value: 0)
        let source = DrivenSource<Int>()
        let binding = source.observable.bind(to: relay)
        source.onNext(1)
        binding.dispose()
        source.onNext(2)
        XCTAssertEqual(relay.value, 1)
        XCTAssertEqual(source.observerCount, 0)
    }
}
