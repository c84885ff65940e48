import Foundation

extension ObservableType {
    /// Emits at most one element per `dueTime`, with RxSwift 6 semantics: an element that comes when
    /// `dueTime` has passed since the last emission goes out at once; one that comes sooner is
    /// dropped if `latest` is false, and otherwise kept (the newest wins) and emitted when the
    /// `dueTime` since the last emission is over.
    ///
    /// - Parameters:
    ///   - dueTime: The minimum spacing of emitted elements (fractional seconds are kept).
    ///   - latest: Whether the newest element of a throttled window is emitted at its end.
    ///   - scheduler: Its clock measures the spacing and its timers emit the kept element. Required:
    ///     nothing here defaults to the main scheduler.
    /// - Returns: The throttled sequence. Completion waits for a kept element to go out first; an
    ///   error is passed on at once, dropping it. The source's subscription is released as soon as
    ///   the source terminates.
    /// - Note: Elements emitted at once arrive on the source's thread, kept ones on `scheduler`.
    ///   Events never overlap. Thread-safe. Spacing is measured with `scheduler.now`; two instants
    ///   less than a nanosecond short of `dueTime` apart count as `dueTime` apart.
    public func throttle(
        _ dueTime: RxTimeInterval,
        latest: Bool = true,
        scheduler: any SchedulerType
    ) -> Observable<Element> {
        ThrottleObservable(source: asObservable(), dueTime: dueTime, latest: latest, scheduler: scheduler)
    }
}

// @unchecked Sendable (restated: `Observable` is unchecked, so no subclass can be checked):
// immutable after init; every stored value is `Sendable` or a `@Sendable` closure.
final class ThrottleObservable<Element>: Observable<Element>, @unchecked Sendable {
    private let source: Observable<Element>
    private let dueTime: RxTimeInterval
    private let latest: Bool
    private let scheduler: any SchedulerType

    init(source: Observable<Element>, dueTime: RxTimeInterval, latest: Bool, scheduler: any SchedulerType) {
        self.source = source
        self.dueTime = dueTime
        self.latest = latest
        self.scheduler = scheduler
    }

    override func subscribe(_ observer: ObserverNode<Element>) -> ClassDisposable {
        let sink = ThrottleSink(dueTime: dueTime, latest: latest, scheduler: scheduler, downstream: observer)
        sink.run(source)
        return sink
    }
}

/// Remembers when it last emitted; an early element is kept (if `latest`) and a single timer emits
/// it when the window since the last emission closes. The timer's thread and the source's meet on
/// the drain loop.
// @unchecked Sendable: the window, the kept element and the queue live in one LockedState.
final class ThrottleSink<Element>: DrainingSink<Element, Element>, @unchecked Sendable {
    /// Floating-point slack when comparing `now` differences with `dueTime`.
    private static var tolerance: Double { 1e-9 }

    private struct State {
        var lastEmission: Date?
        var kept: Element?
        var completionWaits = false
        var queue = FIFOBuffer<Event<Element>>()
    }

    private enum Decision {
        case none
        case deliver
        case startTimer(RxTimeInterval)
    }

    private let dueTime: RxTimeInterval
    private let latest: Bool
    private let scheduler: any SchedulerType
    private let state = LockedState<State>.make(State())
    private let timer = SerialDisposable()
    /// Held here rather than as the upstream so that it is released when the source terminates.
    private let sourceSubscription = SingleAssignmentDisposable()

    init(dueTime: RxTimeInterval, latest: Bool, scheduler: any SchedulerType, downstream: ObserverNode<Element>) {
        self.dueTime = dueTime
        self.latest = latest
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    func run(_ source: Observable<Element>) {
        sourceSubscription.setDisposable(source.subscribe(self))
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        let now = scheduler.now
        let (decision, replaced) = state.withLock { state -> (Decision, Element?) in
            let remaining = state.lastEmission.map { dueTime.timeInterval - now.timeIntervalSince($0) } ?? 0
            if remaining <= Self.tolerance {
                let replaced = state.kept
                state.kept = nil
                state.lastEmission = now
                state.queue.append(.next(element))
                return (.deliver, replaced)
            }
            guard latest else { return (.none, nil) }
            let timerRuns = state.kept != nil
            let replaced = state.kept
            state.kept = element
            return (timerRuns ? .none : .startTimer(RxTimeInterval(timeInterval: remaining)), replaced)
        }
        _ = replaced  // released outside the lock
        switch decision {
        case .none:
            break
        case .deliver:
            signal()
        case .startTimer(let remaining):
            timer.disposable = scheduler.scheduleRelative(self, dueTime: remaining) { sink in
                sink.windowClosed()
                return Disposables.create()
            }
        }
    }

    private func windowClosed() {
        let now = scheduler.now
        state.withLock { state in
            if let kept = state.kept {
                state.kept = nil
                state.lastEmission = now
                state.queue.append(.next(kept))
            }
            if state.completionWaits {
                state.completionWaits = false
                state.queue.append(.completed)
            }
        }
        signal()
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        sourceSubscription.dispose()
        let ready = state.withLock { state -> Bool in
            if state.kept != nil {
                state.completionWaits = true
                return false
            }
            state.queue.append(.completed)
            return true
        }
        if ready { signal() }
    }

    override func onError(_ error: Error) {
        guard !isStoppedOrDisposed else { return }
        sourceSubscription.dispose()
        let dropped = state.withLock { state -> Element? in
            defer {
                state.kept = nil
                state.completionWaits = false
            }
            state.queue.append(.error(error))
            return state.kept
        }
        _ = dropped
        signal()
    }

    override func drainOne() -> DrainStep {
        deliver(state.withLock { $0.queue.popFirst() })
    }

    override func didDispose() {
        timer.dispose()
        sourceSubscription.dispose()
        let dropped = state.withLock { state -> (Element?, FIFOBuffer<Event<Element>>) in
            defer { state.kept = nil }
            return (state.kept, state.queue.takeAll())
        }
        _ = dropped
        super.didDispose()
    }
}
