/// One scheduled action at a time, for the sinks that send each item by an action of its own
/// (`observe(on:)`, `from/of/just(_:scheduler:)`).
///
/// The holder of the right to send the next item calls `request(_:on:_:)`; the calls to
/// `scheduler.schedule` run on a `DrainLoop`, so an action that the scheduler runs at once (inside
/// `schedule`) and requests the next one leaves it to the loop instead of recursing: an immediate
/// scheduler runs a whole sequence in constant stack depth. The pending action's handle is kept so
/// that `cancel()` stops it.
///
/// Non-copyable: a `let` of the sink it serves, whose own lifecycle calls `cancel()`.
struct ScheduledActionChain<Item>: ~Copyable {
    private struct State {
        /// The item of the next action, until it is scheduled.
        var item: Item?
        /// The last scheduled action, to cancel.
        var scheduled: Disposable?
        var isCancelled = false
    }

    private let state = LockedState<State>.make(State())
    private let loop = DrainLoop()

    init() {}

    /// Schedules an action on `scheduler` that calls `action(item)`: now, or right after the call to
    /// `schedule` in progress returns. Ignored once cancelled.
    func request(_ item: Item, on scheduler: any ImmediateSchedulerType, _ action: @escaping @Sendable (Item) -> Void) {
        let accepted = state.withLock { state -> Bool in
            guard !state.isCancelled else { return false }
            state.item = item
            return true
        }
        if accepted, loop.signal() {
            loop.run(missed: 1) { scheduleRequested(on: scheduler, action) }
        }
    }

    /// One step of the loop: schedules the action asked for, if any.
    private func scheduleRequested(on scheduler: any ImmediateSchedulerType, _ action: @escaping @Sendable (Item) -> Void) -> DrainStep {
        var item: Item?
        let cancelled = state.withLock { state -> Bool in
            if state.isCancelled { return true }
            swap(&item, &state.item)
            return false
        }
        if cancelled { return .finished }
        guard let item else { return .idle }
        let scheduled = scheduler.schedule(item) { item in
            action(item)
            return Disposables.create()
        }
        var replaced: Disposable?
        let cancelledMeanwhile = state.withLock { state -> Bool in
            if state.isCancelled { return true }
            replaced = state.scheduled
            state.scheduled = scheduled
            return false
        }
        // The finished action's handle is released here, after the lock: a user scheduler's
        // disposable may run code in its deinit.
        _ = replaced
        if cancelledMeanwhile {
            scheduled.dispose()
            return .finished
        }
        return .delivered
    }

    /// Cancels the pending action and refuses later requests.
    func cancel() {
        let (scheduled, item) = state.withLock { state -> (Disposable?, Item?) in
            state.isCancelled = true
            defer {
                state.scheduled = nil
                state.item = nil
            }
            return (state.scheduled, state.item)
        }
        scheduled?.dispose()
        // Released here, after the lock: an iterator's deinit may run user code.
        _ = item
    }
}
