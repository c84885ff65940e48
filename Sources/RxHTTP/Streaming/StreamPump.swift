import Foundation
import RxCore

/// The bounded buffer between a streamed response and its reader.
///
/// The transport pushes chunks from its own thread (URLSession on Linux cannot pause a transfer, so
/// there is no backpressure to apply); the pump keeps them — at most `maxBufferedBytes` not yet
/// delivered — and delivers them in order on its own serial queue, so a slow reader never blocks the
/// network thread. A reader that falls further behind than the buffer gets `.bufferOverflow` and the
/// exchange is cancelled: never silent loss, never unbounded memory.
///
/// Attempts: the client may send a stream's request more than once before a head is accepted (a
/// retry, an authentication replay). Chunks are kept per attempt; a new attempt discards the previous
/// one's and cancels its exchange. Nothing is delivered until the client accepted the head (`open`).
///
/// Idle time-out: once open, no chunk for `idleTimeout` seconds fails the stream with `.timedOut`.
final class StreamPump: Sendable {
    /// What the reader does with the stream.
    struct Sink: Sendable {
        /// A chunk, in order; throwing fails the stream (a parser's error).
        let chunk: @Sendable (Data) throws -> Void
        /// The body ended.
        let end: @Sendable () throws -> Void
        /// The stream failed.
        let fail: @Sendable (Error) -> Void
    }

    private enum Phase {
        case waiting
        case open
        case finished
    }

    private struct State {
        var phase = Phase.waiting
        var attempt = 0
        var exchange: Disposable?
        var headSeen = false
        var chunks: [Data] = []
        var bufferedBytes = 0
        var ended = false
        var failure: Error?
        var idleTimer: Disposable?
        var lastChunk = Date.distantPast
    }

    private let maxBufferedBytes: Int
    private let idleTimeout: TimeInterval
    private let scheduler: SchedulerType
    private let sink: Sink
    /// Runs the delivery: the pump's own serial queue, or the client's `callbackScheduler` (virtual
    /// time in tests).
    private let deliveryScheduler: SchedulerType?
    private let queue = DispatchQueue(label: "RxHTTP.StreamPump")
    private let state = LockedState<State>.make(State())
    /// Who delivers: one drain at a time, on the delivery queue (RxCore's drain loop).
    private let delivery = DrainLoop()

    init(maxBufferedBytes: Int, idleTimeout: TimeInterval, scheduler: SchedulerType, deliveryScheduler: SchedulerType?, sink: Sink) {
        self.maxBufferedBytes = max(1, maxBufferedBytes)
        self.idleTimeout = idleTimeout
        self.scheduler = scheduler
        self.deliveryScheduler = deliveryScheduler
        self.sink = sink
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    // MARK: The client's side

    /// A new attempt starts: the previous attempt's chunks are dropped and its exchange cancelled.
    /// Called before the transport starts, since it may answer during `stream`.
    func begin(attempt: Int) {
        let stale = state.withLock { state -> Disposable? in
            guard state.phase == .waiting else { return nil }
            let previous = state.exchange
            state.attempt = attempt
            state.exchange = nil
            state.headSeen = false
            state.chunks = []
            state.bufferedBytes = 0
            state.ended = false
            state.failure = nil
            return previous
        }
        stale?.dispose()
    }

    /// The exchange of `attempt`, once the transport returned it; cancelled at once if the attempt
    /// or the stream is over.
    func attach(_ exchange: Disposable, attempt: Int) {
        let keep = state.withLock { state -> Bool in
            guard state.attempt == attempt, state.phase != .finished, state.exchange == nil else { return false }
            state.exchange = exchange
            return true
        }
        if !keep {
            let current = state.withLock { $0.attempt == attempt && $0.phase != .finished }
            // The current attempt that already ended needs nothing; anything else is stale.
            if !current { exchange.dispose() }
        }
    }

    /// Whether `attempt`'s head has arrived (a later failure belongs to the body).
    func noteHead(attempt: Int) {
        state.withLock { state in
            if state.attempt == attempt { state.headSeen = true }
        }
    }

    func headSeen(attempt: Int) -> Bool {
        state.withLock { $0.attempt == attempt && $0.headSeen }
    }

    /// The client gave up on `attempt` (it retries, or fails): its exchange is cancelled.
    func abandon(attempt: Int) {
        let exchange = state.withLock { state -> Disposable? in
            guard state.attempt == attempt, state.phase == .waiting else { return nil }
            state.chunks = []
            state.bufferedBytes = 0
            defer { state.exchange = nil }
            return state.exchange
        }
        exchange?.dispose()
    }

    /// A body part or failure of `attempt` from the transport.
    func receive(_ part: Result<HTTPStreamPart, Error>, attempt: Int) {
        var overflow = false
        let schedule = state.withLock { state -> Bool in
            guard state.attempt == attempt, state.phase != .finished, !state.ended, state.failure == nil else { return false }
            switch part {
            case .success(.body(let data)):
                state.chunks.append(data)
                state.bufferedBytes += data.count
                state.lastChunk = scheduler.now
                if state.bufferedBytes > maxBufferedBytes {
                    overflow = true
                    state.failure = HTTPClientError(
                        .bufferOverflow,
                        message: "the reader fell \(state.bufferedBytes) bytes behind the stream; the buffer holds \(maxBufferedBytes)",
                        phase: .responded
                    )
                    state.chunks = []
                    state.bufferedBytes = 0
                }
            case .success(.end):
                state.ended = true
            case .success(.head):
                return false
            case .failure(let error):
                state.failure = error
            }
            return state.phase == .open
        }
        if overflow {
            state.withLock { $0.exchange }?.dispose()
        }
        if schedule { scheduleDrain() }
    }

    /// The client accepted the head: delivery starts (what arrived already goes first).
    func open() {
        let schedule = state.withLock { state -> Bool in
            guard state.phase == .waiting else { return false }
            state.phase = .open
            state.lastChunk = scheduler.now
            return true
        }
        guard schedule else { return }
        armIdleTimer(after: idleTimeout)
        scheduleDrain()
    }

    /// The stream failed before it opened (the client's error), or the reader gave up.
    func fail(_ error: Error) {
        let schedule = state.withLock { state -> Bool in
            guard state.phase != .finished else { return false }
            if state.failure == nil { state.failure = error }
            state.phase = .open
            return true
        }
        if schedule { scheduleDrain() }
    }

    /// Stops everything: the exchange is cancelled, nothing more is delivered.
    func dispose() {
        let (exchange, timer) = state.withLock { state -> (Disposable?, Disposable?) in
            state.phase = .finished
            state.chunks = []
            defer { state.exchange = nil; state.idleTimer = nil }
            return (state.exchange, state.idleTimer)
        }
        exchange?.dispose()
        timer?.dispose()
    }

    // MARK: Delivery

    /// Starts a drain on the delivery queue unless one runs (which then delivers what is new too).
    private func scheduleDrain() {
        guard delivery.signal() else { return }
        if let deliveryScheduler {
            _ = deliveryScheduler.schedule(()) { [self] _ in
                drain()
                return Disposables.create()
            }
        } else {
            queue.async { [self] in drain() }
        }
    }

    private enum Step {
        case chunks([Data])
        case end
        case fail(Error)
        case idle
        case over
    }

    /// On the delivery queue: delivers until nothing is left, then stops (a new chunk schedules it).
    private func drain() {
        delivery.run(missed: 1) {
            let step = state.withLock { state -> Step in
                guard state.phase == .open else { return .over }
                if !state.chunks.isEmpty {
                    defer { state.chunks = []; state.bufferedBytes = 0 }
                    return .chunks(state.chunks)
                }
                if let failure = state.failure {
                    state.phase = .finished
                    return .fail(failure)
                }
                if state.ended {
                    state.phase = .finished
                    return .end
                }
                return .idle
            }
            switch step {
            case .idle:
                return .idle
            case .over:
                return .finished
            case .chunks(let chunks):
                do {
                    for chunk in chunks where state.withLock({ $0.phase == .open }) {
                        try sink.chunk(chunk)
                    }
                } catch {
                    finish(with: error)
                    return .finished
                }
                return .delivered
            case .end:
                cleanUp()
                do {
                    try sink.end()
                } catch {
                    sink.fail(error)
                }
                return .finished
            case .fail(let error):
                cleanUp()
                sink.fail(error)
                return .finished
            }
        }
    }

    /// A reader's error: cancels the exchange and fails the stream.
    private func finish(with error: Error) {
        let proceed = state.withLock { state -> Bool in
            guard state.phase == .open else { return false }
            state.phase = .finished
            return true
        }
        guard proceed else { return }
        cleanUp()
        sink.fail(error)
    }

    private func cleanUp() {
        let (exchange, timer) = state.withLock { state -> (Disposable?, Disposable?) in
            defer { state.exchange = nil; state.idleTimer = nil; state.chunks = [] }
            return (state.exchange, state.idleTimer)
        }
        exchange?.dispose()
        timer?.dispose()
    }

    // MARK: Idle time-out

    private func armIdleTimer(after seconds: TimeInterval) {
        guard idleTimeout.isFinite, idleTimeout > 0 else { return }
        let timer = scheduler.scheduleRelative((), dueTime: .seconds(seconds)) { [weak self] _ in
            self?.idleCheck()
            return Disposables.create()
        }
        let stale = state.withLock { state -> Disposable? in
            guard state.phase == .open else { return timer }
            let previous = state.idleTimer
            state.idleTimer = timer
            return previous
        }
        stale?.dispose()
    }

    /// Fails the stream if no chunk came for `idleTimeout`, else re-arms for the rest of it.
    private func idleCheck() {
        let now = scheduler.now
        let remaining = state.withLock { state -> TimeInterval? in
            guard state.phase == .open, !state.ended, state.failure == nil else { return nil }
            return idleTimeout - now.timeIntervalSince(state.lastChunk)
        }
        guard let remaining else { return }
        if remaining > 0 {
            armIdleTimer(after: remaining)
            return
        }
        state.withLock { $0.exchange }?.dispose()
        receiveIdleFailure()
    }

    private func receiveIdleFailure() {
        let schedule = state.withLock { state -> Bool in
            guard state.phase == .open, state.failure == nil else { return false }
            state.failure = HTTPClientError(
                .timedOut, message: "no bytes for \(String(format: "%.3g", idleTimeout)) s (the stream's idle time-out)", phase: .responded
            )
            return true
        }
        if schedule { scheduleDrain() }
    }
}
