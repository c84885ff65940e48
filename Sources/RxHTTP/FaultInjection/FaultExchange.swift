import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One exchange of `FaultInjection`: what it holds (timers, the wrapped transport's exchange) and
/// the one delivery of its result — or, for a stream, its parts up to the last — never after it was
/// disposed.
final class FaultExchange<Value: Sendable>: Disposable, Sendable {
    private struct State {
        var isOver = false
        var held: [Disposable] = []
    }

    private let deliver: @Sendable (Result<Value, any Error>) -> Void
    /// For a stream, which part is its last (`.end`; a failure ends it too); nil when the one
    /// delivery is the result.
    private let isLast: (@Sendable (Value) -> Bool)?
    private let state = LockedState<State>.make(State())

    init(_ deliver: @escaping @Sendable (Result<Value, any Error>) -> Void, isLast: (@Sendable (Value) -> Bool)? = nil) {
        self.deliver = deliver
        self.isLast = isLast
    }

    /// Runs `work` after `seconds` on `scheduler` (never inside the caller's call), unless the
    /// exchange is over by then.
    func after(_ seconds: TimeInterval, on scheduler: SchedulerType, _ work: @escaping @Sendable () -> Void) {
        hold(scheduler.scheduleRelative((), dueTime: .seconds(seconds)) { [weak self] _ in
            if self?.isOver == false { work() }
            return Disposables.create()
        })
    }

    /// Keeps `disposable` until the exchange is over (disposed at once if it already is).
    func hold(_ disposable: Disposable) {
        let late = state.withLock { state -> Bool in
            guard !state.isOver else { return true }
            state.held.append(disposable)
            return false
        }
        if late { disposable.dispose() }
    }

    private var isOver: Bool {
        state.withLock { $0.isOver }
    }

    /// Delivers a stream part; `.end` and a failure end the exchange.
    func pass(_ part: Result<Value, any Error>) {
        if let isLast, case .success(let value) = part, !isLast(value) {
            guard !isOver else { return }
            deliver(part)
            return
        }
        finish(part)
    }

    /// Delivers the result once, then releases what the exchange held.
    func finish(_ result: Result<Value, any Error>) {
        let held = state.withLock { state -> [Disposable]? in
            guard !state.isOver else { return nil }
            state.isOver = true
            defer { state.held = [] }
            return state.held
        }
        guard let held else { return }
        deliver(result)
        for disposable in held { disposable.dispose() }
    }

    func dispose() {
        let held = state.withLock { state -> [Disposable] in
            state.isOver = true
            defer { state.held = [] }
            return state.held
        }
        for disposable in held { disposable.dispose() }
    }
}

/// Paces a stream's parts: each body chunk leaves `size / rate` seconds after the part before it,
/// in order, one timer at a time.
final class StreamPacer: Sendable {
    private struct State {
        var queue: [(cost: TimeInterval, work: @Sendable () -> Void)] = []
        var running = false
    }

    private let rate: Int
    private let scheduler: SchedulerType
    private let state = LockedState<State>.make(State())

    init(rate: Int, scheduler: SchedulerType) {
        self.rate = max(1, rate)
        self.scheduler = scheduler
    }

    func deliver(_ part: Result<HTTPStreamPart, any Error>, _ work: @escaping @Sendable () -> Void) {
        let cost: TimeInterval = if case .success(.body(let chunk)) = part { Double(chunk.count) / Double(rate) } else { 0 }
        let start = state.withLock { state -> Bool in
            state.queue.append((cost, work))
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if start { next() }
    }

    private func next() {
        let item = state.withLock { state -> (cost: TimeInterval, work: @Sendable () -> Void)? in
            guard !state.queue.isEmpty else {
                state.running = false
                return nil
            }
            return state.queue.removeFirst()
        }
        guard let item else { return }
        _ = scheduler.scheduleRelative((), dueTime: .seconds(item.cost)) { [self] _ in
            item.work()
            next()
            return Disposables.create()
        }
    }
}
