import Foundation
import RxCore
import RxReachability
import RxTesting
import XCTest

/// Reachability's cadence and events in virtual time (one tick = one second), with a scripted prober.
final class ReachabilityVirtualTimeTests: RxTestCase {
    private var scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)

    override func setUp() {
        super.setUp()
        scheduler = TestScheduler(initialClock: 0, simulateProcessingDelay: false)
    }

    private func makeProber(
        _ script: [StubProber.Answer], then current: StubProber.Answer = .reachable, keepsCancelled: Bool = false
    ) -> StubProber {
        let scheduler = scheduler
        return StubProber(script, then: current, keepsCancelledCompletions: keepsCancelled, clock: { scheduler.clock })
    }

    private func makeReachability(
        _ prober: StubProber, interval: TimeInterval = 10, timeout: TimeInterval = 3,
        unreachableInterval: TimeInterval? = nil
    ) -> Reachability {
        Reachability(
            host: "api.example.com", port: 443, probeInterval: interval, timeout: timeout,
            unreachableProbeInterval: unreachableInterval ?? interval, scheduler: scheduler, prober: prober
        )
    }

    /// Subscribes `observer` to `source` at `subscribed` and disposes at `disposed`.
    private func schedule<Element>(
        _ source: Observable<Element>, _ observer: TestableObserver<Element>, from subscribed: TestTime, to disposed: TestTime
    ) {
        let subscription = LockedBox<Disposable?>(nil)
        scheduler.scheduleAt(subscribed) { subscription.mutate { $0 = source.subscribe(observer) } }
        scheduler.scheduleAt(disposed) { subscription.mutate { $0?.dispose(); $0 = nil } }
    }

    private func signalTimes(_ observer: TestableObserver<Void>) -> [TestTime] {
        observer.events.compactMap { if case .next = $0.value { return $0.time } else { return nil } }
    }

    // MARK: - Status

    func testStatusFollowsTheProbesAndEmitsOnlyChanges() {
        let prober = makeProber([.reachable, .reachable, .unreachable, .unreachable, .reachable, .reachable])
        let reachability = makeReachability(prober)
        let observer = scheduler.start(disposed: 255) { reachability.status }
        XCTAssertEqual(observer.events, [
            .next(200, .reachable),
            .next(220, .unreachable),
            .next(240, .reachable),
        ])
        XCTAssertEqual(prober.probeTimes, [200, 210, 220, 230, 240, 250])
        XCTAssertEqual(prober.calls.first?.host, "api.example.com")
        XCTAssertEqual(prober.calls.first?.port, 443)
        XCTAssertEqual(prober.calls.first?.timeout, 3)
    }

    /// A standalone `Reachability` with its defaults, waited on while the host is down, probes
    /// every half second (the client's recovery interval), not every `probeInterval`: a retry hears
    /// of the host's return within 0.5 s, not 5 s.
    func testWaitedOnWhileDownItProbesAtTheRecoveryInterval() {
        let fine = TestScheduler(initialClock: 0, resolution: 0.1, simulateProcessingDelay: false)
        let prober = StubProber([.unreachable, .unreachable, .reachable], then: .reachable, clock: { fine.clock })
        let reachability = Reachability(host: "api.example.com", port: 443, scheduler: fine, prober: prober)
        XCTAssertEqual(reachability.probeInterval, 5)
        let observer = fine.start(disposed: 300) { reachability.didBecomeReachable }
        XCTAssertEqual(observer.events.map(\.time), [210], "back at the third probe, one second in (ticks of 0.1 s)")
        XCTAssertEqual(prober.probeTimes, [200, 205, 210, 260], "0.5 s apart while down, 5 s once up")
    }

    func testFirstProbeRunsAtOnceOnSubscription() {
        let prober = makeProber([.unreachable])
        let reachability = makeReachability(prober)
        let observer = scheduler.start(disposed: 201) { reachability.status }
        XCTAssertEqual(observer.events, [.next(200, .unreachable)])
        XCTAssertEqual((reachability.lastProbeError as? TCPProbeError), nil, "forgotten after the last dispose")
    }

    func testLateSubscriberGetsTheLatestStatusAtOnceThenChanges() {
        let prober = makeProber([.reachable, .reachable, .unreachable])
        let reachability = makeReachability(prober)
        let early = scheduler.createObserver(ReachabilityStatus.self)
        let late = scheduler.createObserver(ReachabilityStatus.self)
        schedule(reachability.status, early, from: 200, to: 225)
        schedule(reachability.status, late, from: 215, to: 225)
        scheduler.start()
        XCTAssertEqual(early.events, [.next(200, .reachable), .next(220, .unreachable)])
        XCTAssertEqual(late.events, [.next(215, .reachable), .next(220, .unreachable)])
        XCTAssertEqual(prober.probeTimes.prefix(3), [200, 210, 220], "the second subscriber shares the probing")
    }

    func testSubscriberBeforeTheFirstAnswerGetsNoReplay() {
        let prober = makeProber([.never, .reachable])
        let reachability = makeReachability(prober)
        let first = scheduler.createObserver(ReachabilityStatus.self)
        let second = scheduler.createObserver(ReachabilityStatus.self)
        schedule(reachability.status, first, from: 200, to: 250)
        schedule(reachability.status, second, from: 201, to: 250)
        scheduler.start()
        XCTAssertEqual(first.events, [.next(203, .unreachable), .next(213, .reachable)])
        XCTAssertEqual(second.events, first.events)
    }

    // MARK: - didBecomeReachable

    func testDidBecomeReachableFiresOnlyOnUnreachableToReachable() {
        let prober = makeProber([.reachable, .unreachable, .reachable, .unreachable, .unreachable, .reachable, .reachable])
        let reachability = makeReachability(prober)
        let statuses = scheduler.createObserver(ReachabilityStatus.self)
        let signals = scheduler.createObserver(Void.self)
        schedule(reachability.status, statuses, from: 200, to: 265)
        schedule(reachability.didBecomeReachable, signals, from: 200, to: 265)
        scheduler.start()
        XCTAssertEqual(signalTimes(signals), [220, 250], "not at 200: the first reachable came from nothing")
        XCTAssertEqual(statuses.events.map(\.time), [200, 210, 220, 230, 250])
    }

    func testDidBecomeReachableAloneStartsProbingAndFiresWhenTheHostComesBack() {
        let prober = makeProber([.unreachable, .unreachable, .reachable])
        let reachability = makeReachability(prober, unreachableInterval: 2)
        let signals = scheduler.start(disposed: 300) { reachability.didBecomeReachable }
        XCTAssertEqual(signalTimes(signals), [204])
        XCTAssertEqual(prober.probeTimes.prefix(4), [200, 202, 204, 214])
    }

    func testDidBecomeReachableDoesNotFireForAReachableFirstProbe() {
        let prober = makeProber([], then: .reachable)
        let reachability = makeReachability(prober)
        let signals = scheduler.start(disposed: 300) { reachability.didBecomeReachable }
        XCTAssertEqual(signalTimes(signals), [])
        XCTAssertEqual(prober.probeCount, 10)
    }

    // MARK: - Cadence

    func testCadenceUsesTheUnreachableIntervalAfterAFailure() {
        let prober = makeProber([.reachable, .unreachable, .unreachable, .reachable, .reachable])
        let reachability = makeReachability(prober, interval: 10, unreachableInterval: 4)
        _ = scheduler.start(disposed: 235) { reachability.status }
        XCTAssertEqual(prober.probeTimes, [200, 210, 214, 218, 228])
    }

    func testAProbeThatNeverAnswersIsCancelledAtTheTimeoutAndCountsAsUnreachable() {
        let prober = makeProber([], then: .never)
        let reachability = makeReachability(prober, interval: 10, timeout: 3)
        let observer = scheduler.createObserver(ReachabilityStatus.self)
        schedule(reachability.status, observer, from: 200, to: 230)
        let errorAt204 = LockedBox<TCPProbeError?>(nil)
        scheduler.scheduleAt(204) { errorAt204.mutate { $0 = reachability.lastProbeError as? TCPProbeError } }
        scheduler.start()
        XCTAssertEqual(observer.events, [.next(203, .unreachable)])
        XCTAssertEqual(prober.probeTimes, [200, 213, 226])
        XCTAssertEqual(prober.cancelCount, 3, "each at its deadline")
        XCTAssertEqual(prober.inFlightCount, 0)
        XCTAssertEqual(errorAt204.value?.code, .timedOut)
    }

    func testAnAnswerArrivingAfterTheDeadlineIsIgnored() {
        let prober = makeProber([.never], then: .unreachable, keepsCancelled: true)
        let reachability = makeReachability(prober, interval: 10, timeout: 3)
        let statuses = scheduler.createObserver(ReachabilityStatus.self)
        let signals = scheduler.createObserver(Void.self)
        schedule(reachability.status, statuses, from: 200, to: 220)
        schedule(reachability.didBecomeReachable, signals, from: 200, to: 220)
        scheduler.scheduleAt(205) { prober.answerAbandoned(.success(())) }
        scheduler.start()
        XCTAssertEqual(statuses.events, [.next(203, .unreachable)])
        XCTAssertEqual(signalTimes(signals), [])
        XCTAssertEqual(prober.probeTimes, [200, 213], "the late answer did not start another cadence")
    }

    // MARK: - Start and stop

    func testProbingStopsAfterTheLastDisposeAndCancelsTheTimer() {
        let prober = makeProber([], then: .reachable)
        let reachability = makeReachability(prober)
        let statuses = scheduler.createObserver(ReachabilityStatus.self)
        let signals = scheduler.createObserver(Void.self)
        schedule(reachability.status, statuses, from: 200, to: 215)
        schedule(reachability.didBecomeReachable, signals, from: 205, to: 225)
        let probingAt = LockedBox<[Bool]>([])
        for time in [199, 216, 226] {
            scheduler.scheduleAt(time) { probingAt.mutate { $0.append(reachability.isProbing) } }
        }
        scheduler.advanceTo(226)
        XCTAssertEqual(prober.probeTimes, [200, 210, 220], "one cadence for both subscribers, none after 225")
        XCTAssertEqual(probingAt.value, [false, true, false])
        XCTAssertTrue(scheduler.isIdle, "no timer or deadline left behind")
        scheduler.advanceTo(1_000)
        XCTAssertEqual(prober.probeCount, 3)
    }

    func testDisposeCancelsTheProbeInFlight() {
        let prober = makeProber([], then: .never)
        let reachability = makeReachability(prober, timeout: 30)
        let statuses = scheduler.start(disposed: 205) { reachability.status }
        XCTAssertEqual(statuses.events, [])
        XCTAssertEqual(prober.probeCount, 1)
        XCTAssertEqual(prober.cancelCount, 1)
        XCTAssertEqual(prober.inFlightCount, 0)
        XCTAssertTrue(scheduler.isIdle, "the deadline was cancelled too")
    }

    func testASecondSessionStartsFromAFreshProbeNotAStaleStatus() {
        let prober = makeProber([.reachable, .unreachable])
        let reachability = makeReachability(prober)
        let first = scheduler.createObserver(ReachabilityStatus.self)
        let second = scheduler.createObserver(ReachabilityStatus.self)
        let signals = scheduler.createObserver(Void.self)
        schedule(reachability.status, first, from: 200, to: 205)
        schedule(reachability.status, second, from: 300, to: 305)
        schedule(reachability.didBecomeReachable, signals, from: 300, to: 305)
        let between = LockedBox<ReachabilityStatus?>(.reachable)
        scheduler.scheduleAt(250) { between.mutate { $0 = reachability.currentStatus } }
        scheduler.start()
        XCTAssertEqual(first.events, [.next(200, .reachable)])
        XCTAssertEqual(second.events, [.next(300, .unreachable)])
        XCTAssertNil(between.value)
        XCTAssertEqual(prober.probeTimes, [200, 300])
        XCTAssertEqual(signalTimes(signals), [], "the stale reachable of the first session does not count")
    }

    // MARK: - Re-entrancy

    func testAnObserverMayDisposeItsOwnSubscriptionFromOnNext() {
        let prober = makeProber([.reachable, .unreachable], then: .reachable)
        let reachability = makeReachability(prober)
        let received = LockedBox<[ReachabilityStatus]>([])
        let subscription = LockedBox<Disposable?>(nil)
        scheduler.scheduleAt(200) {
            subscription.mutate {
                $0 = reachability.status.subscribe(onNext: { status in
                    received.mutate { $0.append(status) }
                    if status == .unreachable {
                        subscription.mutate { $0?.dispose() }
                    }
                })
            }
        }
        scheduler.advanceTo(300)
        XCTAssertEqual(received.value, [.reachable, .unreachable])
        XCTAssertEqual(prober.probeTimes, [200, 210], "the last dispose, from inside onNext, stopped probing")
        XCTAssertTrue(scheduler.isIdle)
        subscription.mutate { $0 = nil }
    }

    func testSubscribingFromInsideOnNextReplaysOnceAfterTheCurrentEvent() {
        let prober = makeProber([.reachable, .unreachable])
        let reachability = makeReachability(prober)
        let order = LockedBox<[String]>([])
        let inner = LockedBox<Disposable?>(nil)
        let outer = LockedBox<Disposable?>(nil)
        scheduler.scheduleAt(200) {
            outer.mutate {
                $0 = reachability.status.subscribe(onNext: { status in
                    order.mutate { $0.append("outer \(status)") }
                    guard inner.value == nil else { return }
                    let subscription = reachability.status.subscribe(onNext: { status in
                        order.mutate { $0.append("inner \(status)") }
                    })
                    inner.mutate { $0 = subscription }
                    order.mutate { $0.append("subscribed") }
                })
            }
        }
        scheduler.advanceTo(215)
        inner.mutate { $0?.dispose(); $0 = nil }
        outer.mutate { $0?.dispose(); $0 = nil }
        XCTAssertEqual(order.value, [
            "outer reachable", "subscribed", "inner reachable", "outer unreachable", "inner unreachable",
        ])
    }
}
