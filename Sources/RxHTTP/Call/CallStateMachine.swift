import Foundation
import RxCore

/// The life of one call as a state machine (AsyncHTTPClient's `Transaction+StateMachine` is the
/// model): each case owns what the call holds in it, each event is a mutating function that returns
/// the action to run, and `HTTPCall` runs the action after its lock. No transport, no clock, no
/// interceptor here: they are the actions' business, so every transition can be driven in a test.
///
/// ```
/// created ─start→ preparing(step 0…n) ─proceed(last)→ sending ─answer→ answering ─deliver→ finished
///                  │  ▲ hold (cancellable)              │                │ ├─retry→ waiting ─wake→ preparing
///                  │  └────────────────────────────────────── replay ───────┘ └─head (stream)→ streaming ─end→ finished
///                  └─answer/fail→ answering
/// any case ─cancel/deadline/shutdown→ finished   (what the case held is released; every interceptor
///                                                 that let the attempt through is told)
/// ```
struct CallStateMachine {
    /// One attempt: its number (1 for the first send; retries and replays count up) and the request
    /// as the interceptors left it so far.
    struct Attempt {
        let number: Int
        var request: HTTPTransportRequest
        /// How many interceptors let it through (they are owed a `didReceive`).
        var passed: Int
        /// Whether an interceptor may have changed the request's headers (then they are checked
        /// again before sending; the client checked its own when it built the request).
        var headersChanged = false
    }

    /// What went to the transport for an attempt.
    struct Transmission {
        let request: HTTPTransportRequest
        let attempt: Int
        let sentAt: Date
        /// The exchange, once the transport returned it (nil while `send` runs).
        var exchange: Disposable?
    }

    /// The wait before the next attempt: a timer and, maybe, the host coming back.
    struct Wait {
        let next: Int
        let startedAt: Date
        let delay: TimeInterval
        var timer: Disposable?
        var recovery: Disposable?
    }

    enum State {
        /// Built, not started.
        case created
        /// Interceptor `step` decides about `attempt`; `hold` cancels its wait.
        case preparing(Attempt, step: Int, hold: Disposable?)
        /// The transport runs the attempt.
        case sending(Attempt, Transmission)
        /// The answer goes back through the interceptors, on the thread that answered, with what
        /// went to the transport (nil when no transport was involved).
        case answering(Attempt, Transmission?)
        /// Between two attempts.
        case waiting(Wait)
        /// A stream's head was accepted and delivered; its body still flows.
        case streaming(Transmission)
        case finished
    }

    /// Why a call ends before its answer.
    enum Termination: Equatable {
        case cancelled
        case deadline
        case shutdown
    }

    /// What the interceptors decided about an answered attempt.
    enum Decision {
        /// Deliver this response (decode it; for a stream, open its body).
        case deliver(HTTPResponse)
        /// Fail the call with this error.
        case fail(HTTPClientError)
        /// Send again after this delay.
        case retry(after: TimeInterval, error: HTTPClientError)
        /// Send again at once, not counted.
        case replay(HTTPClientError)
    }

    /// What an interceptor decided before an attempt.
    enum Preparation {
        case proceed(HTTPTransportRequest)
        case answer(HTTPResponse)
        case fail(HTTPClientError)
    }

    /// The cleanup of an attempt cut short: the interceptors that let it through are owed a `didReceive`.
    struct Unwind {
        let attempt: Attempt
        let transmission: Transmission?
    }

    /// What ending early releases and reports.
    struct Ending {
        let reason: Termination
        /// Everything the call held: exchange, hold, timers, watches.
        var release: [Disposable]
        /// The attempt in progress to unwind (nil when nothing was in progress, or the thread that
        /// answers is unwinding it itself).
        var unwind: Unwind?
        /// Whether an attempt was handed to the transport and not answered.
        var wasSending: Bool
        /// A delivered stream whose body was cut (its reader and the observers must be told).
        var stream: Transmission?
    }

    /// The first step of the next attempt, after a wait.
    struct PrepareNext {
        let attempt: Attempt
        /// Nil when there are no interceptors: the attempt goes to the transport at once.
        let step: Int?
        let release: [Disposable]
    }

    enum Action {
        case none
        /// Ask interceptor `step` about `attempt` (after releasing what the previous attempt left).
        case prepare(Attempt, step: Int, release: [Disposable])
        /// The interceptors let `attempt` through: the last checks, the transport.
        case send(Attempt, release: [Disposable])
        /// Run the answer back through the interceptors that let the attempt through.
        case answer(Attempt, Transmission?, Result<HTTPResponse, HTTPClientError>)
        /// Arm the wait's timer (and the host's recovery) for the next attempt.
        case wait(next: Int, delay: TimeInterval, after: HTTPClientError, release: [Disposable])
        /// The wait ended (tell it, with the failure it followed), then prepare the next attempt.
        case resume(trigger: RetryTrigger, waited: TimeInterval, delay: TimeInterval, lastError: HTTPClientError?, then: PrepareNext)
        /// Decode and deliver the response; release what the call held (its deadline timer).
        case deliver(HTTPResponse, release: [Disposable])
        /// A stream's head was accepted: deliver it; the body flows on.
        case open(HTTPResponse)
        /// Fail the call with `error`.
        case fail(HTTPClientError, release: [Disposable])
        /// End the call early.
        case end(Ending)
        /// Late `proceed`s of these interceptors after the call ended: each is owed a `didReceive`.
        case releaseLate(steps: Range<Int>)
        /// A stream's body ended (with this failure, if it failed): report the call's end.
        case streamEnded(HTTPClientError?, Transmission, release: [Disposable])
        /// Dispose something that came too late to be kept.
        case dispose(Disposable)
    }

    let interceptorCount: Int
    /// The request as the call built it: every attempt starts from it.
    let request: HTTPTransportRequest
    private(set) var state = State.created
    /// How many times the request went to the transport.
    private(set) var sends = 0
    /// Replays (not counted against the retry policy).
    private(set) var replays = 0
    /// The number of the latest attempt begun (0 before the first).
    private(set) var latestAttempt = 0
    /// The failure of the last attempt that is being retried: what a deadline or shutdown during the
    /// wait reports.
    private(set) var lastError: HTTPClientError?
    /// The status of the last answer, for the completion event.
    private(set) var lastStatus: Int?
    /// The whole call's deadline timer, if any (released when the call ends).
    private var deadlineTimer: Disposable?
    /// What ended the call early, once it did.
    private(set) var endedBy: Termination?

    /// Whether the call was cancelled before it finished.
    var cancelled: Bool { endedBy == .cancelled }

    init(request: HTTPTransportRequest, interceptorCount: Int) {
        self.request = request
        self.interceptorCount = interceptorCount
    }

    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// The attempt in progress (being prepared, sent or answered), if any.
    var currentAttempt: Attempt? {
        switch state {
        case .preparing(let attempt, _, _), .sending(let attempt, _), .answering(let attempt, _): attempt
        case .created, .waiting, .streaming, .finished: nil
        }
    }

    // MARK: Start

    mutating func start() -> Action {
        guard case .created = state else { return .none }
        return prepareFirst(number: 1, release: [])
    }

    /// The request could not be built: the call fails with `error` without an attempt.
    mutating func refuse(_ error: HTTPClientError) -> Action {
        guard case .created = state else { return .none }
        return finish { .fail(error, release: $0) }
    }

    /// The call's deadline timer, once armed; disposed at once if the call already ended.
    mutating func deadlineArmed(_ timer: Disposable) -> Action {
        guard !isFinished else { return .dispose(timer) }
        deadlineTimer = timer
        return .none
    }

    /// Starts attempt `number` at the first interceptor (releasing what the previous one left).
    private mutating func prepareFirst(number: Int, release: [Disposable]) -> Action {
        let attempt = Attempt(number: number, request: request, passed: 0)
        latestAttempt = number
        state = .preparing(attempt, step: 0, hold: nil)
        guard interceptorCount > 0 else {
            return proceedPast(attempt, release: release)
        }
        return .prepare(attempt, step: 0, release: release)
    }

    // MARK: Preparing

    /// Interceptor `step` decided about attempt `number`.
    mutating func prepared(step: Int, attempt number: Int, _ preparation: Preparation) -> Action {
        guard case .preparing(var attempt, let current, _) = state, current == step, attempt.number == number else {
            // Ended meanwhile (or a second call of the completion): an interceptor that let the
            // attempt through after the end is owed its `didReceive`.
            if case .proceed = preparation, isFinished {
                return .releaseLate(steps: step..<(step + 1))
            }
            return .none
        }
        switch preparation {
        case .proceed(let request):
            attempt.request = request
            attempt.passed = step + 1
            attempt.headersChanged = true
            if step + 1 < interceptorCount {
                state = .preparing(attempt, step: step + 1, hold: nil)
                return .prepare(attempt, step: step + 1, release: [])
            }
            return proceedPast(attempt, release: [])
        case .answer(let response):
            state = .answering(attempt, nil)
            return .answer(attempt, nil, .success(response))
        case .fail(let error):
            state = .answering(attempt, nil)
            return .answer(attempt, nil, .failure(error))
        }
    }

    /// Interceptors `steps` let attempt `number` through at once, without changing it (the
    /// built-ins' fast path: no completion, no hold, one lock for all of them).
    mutating func passed(_ steps: Range<Int>, attempt number: Int) -> Action {
        guard case .preparing(var attempt, let current, nil) = state, current == steps.lowerBound, attempt.number == number else {
            return isFinished ? .releaseLate(steps: steps) : .none
        }
        attempt.passed = steps.upperBound
        if steps.upperBound < interceptorCount {
            state = .preparing(attempt, step: steps.upperBound, hold: nil)
            return .prepare(attempt, step: steps.upperBound, release: [])
        }
        return proceedPast(attempt, release: [])
    }

    /// Interceptor `step` holds attempt `number`; `hold` cancels its wait.
    mutating func holding(step: Int, attempt number: Int, _ hold: Disposable) -> Action {
        guard case .preparing(let attempt, let current, nil) = state, current == step, attempt.number == number else {
            // Decided already (it answered within `prepare`), or the call ended.
            return .dispose(hold)
        }
        state = .preparing(attempt, step: step, hold: hold)
        return .none
    }

    private mutating func proceedPast(_ attempt: Attempt, release: [Disposable]) -> Action {
        // Past the last interceptor; `sending` records the transmission when the transport gets it.
        state = .preparing(attempt, step: interceptorCount, hold: nil)
        return .send(attempt, release: release)
    }

    // MARK: Sending

    /// The send action is about to hand `request` to the transport.
    mutating func sending(_ attempt: Attempt, request: HTTPTransportRequest, at now: Date) -> Bool {
        guard case .preparing(let current, let step, nil) = state, step == interceptorCount, current.number == attempt.number else {
            return false
        }
        sends += 1
        state = .sending(current, Transmission(request: request, attempt: attempt.number, sentAt: now, exchange: nil))
        return true
    }

    /// The send action could not send (a header failed validation, the deadline passed): the
    /// attempt is answered with `error` without the transport.
    mutating func notSent(_ attempt: Attempt, error: HTTPClientError) -> Action {
        guard case .preparing(let current, let step, nil) = state, step == interceptorCount, current.number == attempt.number else {
            return .none
        }
        state = .answering(current, nil)
        return .answer(current, nil, .failure(error))
    }

    /// The transport returned the exchange of attempt `number`.
    mutating func exchangeStarted(attempt number: Int, _ exchange: Disposable) -> Action {
        switch state {
        case .sending(let attempt, var transmission) where attempt.number == number && transmission.exchange == nil:
            transmission.exchange = exchange
            state = .sending(attempt, transmission)
            return .none
        case .answering(let attempt, var transmission?) where attempt.number == number && transmission.exchange == nil:
            // Answered while `send` was still returning: the answer decides what becomes of it.
            transmission.exchange = exchange
            state = .answering(attempt, transmission)
            return .none
        case .streaming(var transmission) where transmission.exchange == nil && transmission.attempt == number:
            // The head was accepted while `stream` was still returning: the body flows on it.
            transmission.exchange = exchange
            state = .streaming(transmission)
            return .none
        default:
            // Answered already (disposing a finished exchange does nothing), or ended: cancel it.
            return .dispose(exchange)
        }
    }

    /// The transport answered attempt `number`.
    mutating func transportAnswered(attempt number: Int, _ result: Result<HTTPResponse, HTTPClientError>) -> Action {
        guard case .sending(let attempt, let transmission) = state, attempt.number == number else { return .none }
        if case .success(let response) = result { lastStatus = response.statusCode }
        if case .failure(let error) = result, error.phase == .responded, let status = error.statusCode { lastStatus = status }
        state = .answering(attempt, transmission)
        return .answer(attempt, transmission, result)
    }

    // MARK: Answering

    /// The interceptors decided about attempt `number`.
    ///
    /// - Parameters:
    ///   - isStream: Whether the call streams its body (a delivered head keeps the exchange).
    ///   - isShuttingDown: Whether the client is shutting down (no retry then).
    ///   - shutdownError: The error for a retry refused by the shutdown.
    mutating func answered(
        attempt number: Int, _ decision: Decision, isStream: Bool, isShuttingDown: Bool, at now: Date,
        shutdownError: (HTTPClientError) -> HTTPClientError
    ) -> Action {
        // Only the number is read here, and the transmission only where it is kept or released:
        // binding the whole case would copy what it holds (a retain per field) on every answer.
        guard case .answering(let attempt, _) = state, attempt.number == number else { return .none }
        switch decision {
        case .deliver(let response):
            if isStream, case .answering(_, let transmission?) = state {
                state = .streaming(transmission)
                return .open(response)
            }
            // An exchange that answered in full is over: nothing of it to release.
            return finish { .deliver(response, release: $0) }
        case .fail(let error):
            let exchange = answeredExchange
            return finish { .fail(error, release: $0 + exchange) }
        case .retry(let delay, let error):
            lastError = error
            let exchange = answeredExchange
            if isShuttingDown {
                return finish { .fail(shutdownError(error), release: $0 + exchange) }
            }
            state = .waiting(Wait(next: number + 1, startedAt: now, delay: delay))
            return .wait(next: number + 1, delay: delay, after: error, release: exchange)
        case .replay(let error):
            lastError = error
            replays += 1
            return prepareFirst(number: number + 1, release: answeredExchange)
        }
    }

    /// The exchange of the attempt being answered, which a refused answer releases (a stream's
    /// exchange is still live after its head: only a delivered head keeps it).
    private var answeredExchange: [Disposable] {
        guard case .answering(_, let transmission?) = state, let exchange = transmission.exchange else { return [] }
        return [exchange]
    }

    // MARK: Waiting

    /// The wait before attempt `next` is armed: its timer and, maybe, the host's recovery.
    mutating func waitArmed(next: Int, timer: Disposable?, recovery: Disposable?) -> Action {
        guard case .waiting(var wait) = state, wait.next == next, wait.timer == nil, wait.recovery == nil else {
            return .dispose(Disposables.create([timer, recovery].compactMap { $0 }))
        }
        wait.timer = timer
        wait.recovery = recovery
        state = .waiting(wait)
        return .none
    }

    /// The wait before attempt `next` ended (the first of the timer and the host's recovery wins).
    mutating func waitEnded(next: Int, trigger: RetryTrigger, at now: Date) -> Action {
        guard case .waiting(let wait) = state, wait.next == next else { return .none }
        let release = [wait.timer, wait.recovery].compactMap { $0 }
        let waited = max(0, now.timeIntervalSince(wait.startedAt))
        let next: PrepareNext
        switch prepareFirst(number: wait.next, release: release) {
        case .prepare(let attempt, let step, let release): next = PrepareNext(attempt: attempt, step: step, release: release)
        case .send(let attempt, let release): next = PrepareNext(attempt: attempt, step: nil, release: release)
        default: return .none
        }
        return .resume(trigger: trigger, waited: waited, delay: wait.delay, lastError: lastError, then: next)
    }

    // MARK: Streaming

    /// A delivered stream's body ended (or failed, or its reader gave up).
    mutating func streamEnded(failure: HTTPClientError?) -> Action {
        guard case .streaming(let transmission) = state else { return .none }
        return finish { .streamEnded(failure, transmission, release: $0 + (transmission.exchange.map { [$0] } ?? [])) }
    }

    // MARK: Ending early

    /// Ends the call for `reason` (a cancel, the deadline, a shutdown) as its current case allows;
    /// nothing once finished.
    mutating func terminate(_ reason: Termination) -> Action {
        let action = ending(reason)
        if case .end = action { endedBy = reason }
        return action
    }

    private mutating func ending(_ reason: Termination) -> Action {
        switch state {
        case .finished:
            return .none
        case .created:
            state = .finished
            return .end(Ending(reason: reason, release: takeDeadline(), unwind: nil, wasSending: false))
        case .preparing(let attempt, _, let hold):
            state = .finished
            return .end(Ending(
                reason: reason, release: takeDeadline() + (hold.map { [$0] } ?? []),
                unwind: attempt.passed > 0 ? Unwind(attempt: attempt, transmission: nil) : nil, wasSending: false
            ))
        case .sending(let attempt, let transmission):
            // In flight: a shutdown lets it finish (the grace period ends it); a deadline or a
            // cancel cuts it.
            guard reason != .shutdown else { return .none }
            state = .finished
            return .end(Ending(
                reason: reason, release: takeDeadline() + (transmission.exchange.map { [$0] } ?? []),
                unwind: Unwind(attempt: attempt, transmission: transmission), wasSending: true
            ))
        case .answering(_, let transmission):
            // The answering thread is telling the interceptors; it unwinds the attempt itself. A
            // deadline or shutdown lets the answer through. A stream's body is cut.
            guard reason == .cancelled else { return .none }
            state = .finished
            return .end(Ending(reason: reason, release: takeDeadline() + (transmission?.exchange.map { [$0] } ?? []), unwind: nil, wasSending: false))
        case .waiting(let wait):
            state = .finished
            return .end(Ending(reason: reason, release: takeDeadline() + [wait.timer, wait.recovery].compactMap { $0 }, unwind: nil, wasSending: false))
        case .streaming(let transmission):
            // The head was delivered: a cancel (the reader left) or the grace period's end cuts the
            // body; a deadline does not (the stream's idle time-out bounds it).
            guard reason != .deadline else { return .none }
            state = .finished
            return .end(Ending(
                reason: reason, release: takeDeadline() + (transmission.exchange.map { [$0] } ?? []),
                unwind: nil, wasSending: false, stream: transmission
            ))
        }
    }

    /// The client began shutting down: a call that has not been sent, or waits to retry, ends; one
    /// in flight goes on (its failure will not be retried).
    mutating func clientIsShuttingDown() -> Action {
        switch state {
        case .created, .preparing, .waiting: terminate(.shutdown)
        case .sending, .answering, .streaming, .finished: .none
        }
    }

    /// The shutdown's grace period ended: whatever is left ends.
    mutating func gracePeriodEnded() -> Action {
        switch state {
        case .sending(let attempt, let transmission):
            state = .finished
            endedBy = .shutdown
            return .end(Ending(
                reason: .shutdown, release: takeDeadline() + (transmission.exchange.map { [$0] } ?? []),
                unwind: Unwind(attempt: attempt, transmission: transmission), wasSending: true
            ))
        case .answering:
            return .none
        default:
            return terminate(.shutdown)
        }
    }

    private mutating func takeDeadline() -> [Disposable] {
        defer { deadlineTimer = nil }
        return deadlineTimer.map { [$0] } ?? []
    }

    /// Moves to `finished`, handing what is to be released to `make`.
    private mutating func finish(_ make: ([Disposable]) -> Action) -> Action {
        state = .finished
        return make(takeDeadline())
    }
}
