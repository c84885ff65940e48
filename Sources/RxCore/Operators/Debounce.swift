extension ObservableType {
    /// Emits an element only once `dueTime` has passed without another one after it; on completion
    /// the element still waiting is emitted at once, then completion.
    ///
    /// - Parameters:
    ///   - dueTime: The quiet time an element must be followed by (fractional seconds are kept).
    ///   - scheduler: Where the timers run. Required: nothing here defaults to the main scheduler.
    /// - Returns: The debounced sequence. An error is passed on at once, dropping the waiting element.
    /// - Note: Debounced elements arrive on `scheduler`; the last one (if the source completes while
    ///   it waits), completion and errors on the source's thread. Events never overlap. Thread-safe.
    public func debounce(_ dueTime: RxTimeInterval, scheduler: any SchedulerType) -> Observable<Element> {
        SinkObservable(source: asObservable()) {
            DebounceSink(dueTime: dueTime, scheduler: scheduler, downstream: $0)
        }
    }
}

/// Keeps the latest element and the id of the timer that may emit it; every element restarts the
/// timer with a new id, so only the newest timer emits. The timer's thread and the source's meet on
/// the drain loop.
// @unchecked Sendable: the latest element, its id and the queue live in one LockedState.
final class DebounceSink<Element>: DrainingSink<Element, Element>, @unchecked Sendable {
    private struct State {
        var id = 0
        var latest: Element?
        var queue = FIFOBuffer<Event<Element>>()
    }

    private let dueTime: RxTimeInterval
    private let scheduler: any SchedulerType
    private let state = LockedState<State>.make(State())
    private let timer = SerialDisposable()

    init(dueTime: RxTimeInterval, scheduler: any SchedulerType, downstream: ObserverNode<Element>) {
        self.dueTime = dueTime
        self.scheduler = scheduler
        super.init(downstream: downstream)
    }

    override func onNext(_ element: Element) {
        guard !isStoppedOrDisposed else { return }
        let (id, replaced) = state.withLock { state -> (Int, Element?) in
            state.id += 1
            defer { state.latest = element }
            return (state.id, state.latest)
        }
        _ = replaced  // released outside the lock
        timer.disposable = scheduler.scheduleRelative(id, dueTime: dueTime) { [self] id in
            timerFired(id: id)
            return Disposables.create()
        }
    }

    private func timerFired(id: Int) {
        let ready = state.withLock { state -> Bool in
            guard state.id == id, let latest = state.latest else { return false }
            state.latest = nil
            state.queue.append(.next(latest))
            return true
        }
        if ready { signal() }
    }

    override func onCompleted() {
        guard !isStoppedOrDisposed else { return }
        state.withLock { state in
            state.id += 1
            if let latest = state.latest {
                state.latest = nil
                state.queue.append(.next(latest))
            }
            state.queue.append(.completed)
        }
        signal()
    }

    override func onError(_ error: Error) {
        guard !isStoppedOrDisposed else { return }
        let dropped = state.withLock { state -> Element? in
            state.id += 1
            state.queue.append(.error(error))
            defer { state.latest = nil }
            return state.latest
        }
        _ = dropped
        signal()
    }

    override func drainOne() -> DrainStep {
        deliver(state.withLock { $0.queue.popFirst() })
    }

    override func didDispose() {
        timer.dispose()
        let dropped = state.withLock { state -> (Element?, FIFOBuffer<Event<Element>>) in
            defer { state.latest = nil }
            return (state.latest, state.queue.takeAll())
        }
        _ = dropped
        super.didDispose()
    }
}
