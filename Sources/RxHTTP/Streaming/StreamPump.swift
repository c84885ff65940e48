import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// The bounded buffer between a streamed response and its reader.
///
/// The transport pushes chunks from its own thread; the pump keeps them — at most `maxBufferedBytes`
/// not yet delivered — and delivers them in order on its own serial queue, so a slow reader never
/// blocks the network thread. A transport that can pause its reads (AsyncHTTPClient) asks the pump
/// (`StreamDemand`) before it reads on, and waits while half the buffer is full; one that cannot
/// (URLSession on Linux) pushes on, and a reader that falls further behind than the buffer gets
/// `.bufferOverflow` and the exchange is cancelled: never silent loss, never unbounded memory.
///
/// Attempts: the client may send a stream's request more than once before a head is accepted (a
/// retry, an authentication replay). Chunks are kept per attempt; a new attempt discards the previous
/// one's. Nothing is delivered until the client accepted the head (`open`). The exchange belongs to
/// the call: when the stream ends here (delivered, failed, overflowed, idle, or its reader threw) the
/// pump tells the call through `stop`, which releases it.
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
        /// Tells the call the stream is over (with its failure, if any); called once.
        var stop: (@Sendable (HTTPClientError?) -> Void)?
        var headSeen = false
        /// Body bytes the current attempt received (for the stream's end: events, log line).
        var receivedBytes = 0
        var chunks: [Data] = []
        var bufferedBytes = 0
        var ended = false
        var failure: Error?
        var idleTimer: Disposable?
        var lastChunk = Date.distantPast
        /// The client is shutting down and this stream never ends by itself: it ends cleanly after
        /// what it received, and no later attempt reopens it.
        var closedForShutdown = false
        /// The reader was told the end (or left): nothing more reaches it.
        var terminalDelivered = false
        /// Runs once the terminal event reached the reader: the client's shutdown waits for it.
        var whenDelivered: (@Sendable () -> Void)?
        /// A paused transport waiting for room (`StreamDemand`): told when the delivery takes what
        /// is buffered, or when the stream ends or starts another attempt.
        var waitingForRoom: [@Sendable () -> Void] = []

        /// Hands the waiting transport over to be resumed (after the lock).
        mutating func takeWaitingForRoom() -> [@Sendable () -> Void] {
            defer { waitingForRoom = [] }
            return waitingForRoom
        }
    }

    /// Also what the transport may hold for the reader (`HTTPTransportOptions.maxStreamBacklogBytes`).
    let maxBufferedBytes: Int
    /// Whether the body never ends by itself (an event stream): a shutdown then ends it, instead of
    /// waiting out the whole grace period for it.
    private let isEndless: Bool
    /// Whether a reader that fell behind still gets what the buffer held before the overflow (a
    /// download, which resumes after the last byte it wrote) instead of losing it (a parser, for
    /// which a gap would be garbage).
    private let deliversBufferOnOverflow: Bool
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

    init(
        maxBufferedBytes: Int, isEndless: Bool = false, deliversBufferOnOverflow: Bool = false, idleTimeout: TimeInterval,
        scheduler: SchedulerType, deliveryScheduler: SchedulerType?, sink: Sink
    ) {
        self.maxBufferedBytes = max(1, maxBufferedBytes)
        self.isEndless = isEndless
        self.deliversBufferOnOverflow = deliversBufferOnOverflow
        self.idleTimeout = idleTimeout
        self.scheduler = scheduler
        self.deliveryScheduler = deliveryScheduler
        self.sink = sink
        Resources.incrementTotal()
    }

    deinit {
        // A transport still paused for this stream is let go (AsyncHTTPClient's promise completes).
        for resume in state.withLock({ $0.takeWaitingForRoom() }) { resume() }
        Resources.decrementTotal()
    }

    // MARK: The client's side

    /// A new attempt starts: the previous attempt's chunks are dropped. Called before the transport
    /// starts, since it may answer during `stream`.
    ///
    /// - Parameter stop: Tells the call that the stream is over, with its failure if it failed.
    func begin(attempt: Int, stop: @escaping @Sendable (HTTPClientError?) -> Void) {
        let resume = state.withLock { state -> [@Sendable () -> Void] in
            guard state.phase == .waiting else { return [] }
            state.attempt = attempt
            state.stop = stop
            state.headSeen = false
            state.receivedBytes = 0
            state.chunks = []
            state.bufferedBytes = 0
            state.ended = state.closedForShutdown
            state.failure = nil
            return state.takeWaitingForRoom()
        }
        for body in resume { body() }
    }

    /// The client began shutting down: an endless stream ends cleanly after what it has received
    /// (its reader sees the body end, and the call releases the exchange); a body that ends by
    /// itself goes on within the grace period.
    func clientIsShuttingDown() {
        guard isEndless else { return }
        let schedule = state.withLock { state -> Bool in
            state.closedForShutdown = true
            guard state.phase != .finished, state.failure == nil else { return false }
            state.ended = true
            return state.phase == .open
        }
        if schedule { scheduleDrain() }
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

    /// The client gave up on `attempt` (it retries, or fails): its chunks are dropped.
    func abandon(attempt: Int) {
        let resume = state.withLock { state -> [@Sendable () -> Void] in
            guard state.attempt == attempt, state.phase == .waiting else { return [] }
            state.chunks = []
            state.bufferedBytes = 0
            return state.takeWaitingForRoom()
        }
        for body in resume { body() }
    }

    /// A body part or failure of `attempt` from the transport.
    func receive(_ part: Result<HTTPStreamPart, Error>, attempt: Int) {
        var overflow: HTTPClientError?
        let schedule = state.withLock { state -> Bool in
            guard state.attempt == attempt, state.phase != .finished, !state.ended, state.failure == nil else { return false }
            switch part {
            case .success(.body(let data)):
                state.receivedBytes += data.count
                state.chunks.append(data)
                state.bufferedBytes += data.count
                state.lastChunk = scheduler.now
                if state.bufferedBytes > maxBufferedBytes {
                    let failure = HTTPClientError(
                        .bufferOverflow,
                        message: "the reader fell \(state.bufferedBytes) bytes behind the stream; the buffer holds \(maxBufferedBytes)",
                        phase: .responded
                    )
                    overflow = failure
                    state.failure = failure
                    if !deliversBufferOnOverflow {
                        state.chunks = []
                        state.bufferedBytes = 0
                    }
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
        if let overflow {
            // Stops the transfer now; the reader gets the overflow after what it was sent.
            takeStop()?(overflow)
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

    /// Stops everything (the reader left): nothing more is delivered. The call, cancelled by the same
    /// dispose, releases the exchange.
    func dispose() {
        let (timer, resume) = state.withLock { state -> (Disposable?, [@Sendable () -> Void]) in
            state.phase = .finished
            state.chunks = []
            state.stop = nil
            defer { state.idleTimer = nil }
            return (state.idleTimer, state.takeWaitingForRoom())
        }
        timer?.dispose()
        for body in resume { body() }
        terminalDelivered()
    }

    /// Runs `body` once the stream's terminal event has reached its reader (at once if it has, or
    /// if the reader left): what the client's shutdown waits for, so that it never completes before
    /// a reader's `onCompleted`.
    func whenTerminalDelivered(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            guard !state.terminalDelivered else { return true }
            state.whenDelivered = body
            return false
        }
        if now { body() }
    }

    /// The reader has its terminal event (or is gone).
    private func terminalDelivered() {
        let waiting = state.withLock { state -> (@Sendable () -> Void)? in
            state.terminalDelivered = true
            defer { state.whenDelivered = nil }
            return state.whenDelivered
        }
        waiting?()
    }

    /// Body bytes the accepted attempt has received so far.
    var receivedBytes: Int {
        state.withLock { $0.receivedBytes }
    }

    /// The stop hook, once.
    private func takeStop() -> (@Sendable (HTTPClientError?) -> Void)? {
        state.withLock { state in
            defer { state.stop = nil }
            return state.stop
        }
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
        case chunks([Data], resume: [@Sendable () -> Void])
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
                    // The buffer is empty again: a paused transport reads on while these are delivered.
                    return .chunks(state.chunks, resume: state.takeWaitingForRoom())
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
            case .chunks(let chunks, let resume):
                for body in resume { body() }
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
                cleanUp(failure: nil)
                do {
                    try sink.end()
                } catch {
                    sink.fail(error)
                }
                terminalDelivered()
                return .finished
            case .fail(let error):
                cleanUp(failure: error as? HTTPClientError ?? HTTPClientError(.transport, underlying: error))
                sink.fail(error)
                terminalDelivered()
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
        cleanUp(failure: error as? HTTPClientError ?? HTTPClientError(.decodeError, message: HTTPClientError.describe(error), underlying: error))
        sink.fail(error)
        terminalDelivered()
    }

    /// The stream is over here: the idle timer goes, and the call is told (it releases the exchange).
    private func cleanUp(failure: HTTPClientError?) {
        let (stop, timer, resume) = state.withLock { state -> ((@Sendable (HTTPClientError?) -> Void)?, Disposable?, [@Sendable () -> Void]) in
            defer { state.stop = nil; state.idleTimer = nil; state.chunks = [] }
            return (state.stop, state.idleTimer, state.takeWaitingForRoom())
        }
        timer?.dispose()
        for body in resume { body() }
        stop?(failure)
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

extension StreamPump: StreamDemand {
    /// At once while less than half the buffer waits (or the stream is over), else when the
    /// delivery next takes what is buffered: a transport that pauses on it keeps at most about
    /// `maxBufferedBytes` in memory, and a slow reader slows the network instead of overflowing.
    func whenReady(_ body: @escaping @Sendable () -> Void) {
        let now = state.withLock { state -> Bool in
            if state.phase == .finished || state.bufferedBytes < maxBufferedBytes / 2 { return true }
            state.waitingForRoom.append(body)
            return false
        }
        if now { body() }
    }
}
