import Foundation
import RxCore

/// The life of one call as a state machine (AsyncHTTPClient's `Transaction+StateMachine` is the
/// model): each case owns what the call holds in it, each event is a mutating function that returns
/// the action to run — a type per family of events (`Step`, `Conclusion`, `Resumption`,
/// `StreamEnd`, `Ending`, or what to dispose), so that an event cannot ask for what it never needs
/// — and `HTTPCall` runs the action after its lock. Transitions that cannot happen assert (debug). No transport, no clock, no
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
    /// A request the machine's values share instead of copying it: an attempt, its transmission, the
    /// states and actions that carry them hold one reference (a copy of the request retains each of
    /// its fields, and an attempt is copied at every transition). A changed request is a new one.
    final class SharedRequest: Sendable {
        let value: HTTPTransportRequest

        init(_ value: HTTPTransportRequest) {
            self.value = value
        }
    }

    /// One attempt: its number (1 for the first send; retries and replays count up) and the request
    /// as the interceptors left it so far.
    struct Attempt {
        let number: Int
        private(set) var shared: SharedRequest
        /// How many interceptors let it through (they are owed a `didReceive`).
        var passed: Int
        /// Whether an interceptor may have changed the request's headers (then they are checked
        /// again before sending; the client checked its own when it built the request).
        var headersChanged = false

        init(number: Int, shared: SharedRequest, passed: Int) {
            self.number = number
            self.shared = shared
            self.passed = passed
        }

        init(number: Int, request: HTTPTransportRequest, passed: Int) {
            self.init(number: number, shared: SharedRequest(request), passed: passed)
        }

        var request: HTTPTransportRequest {
            get { shared.value }
            set { shared = SharedRequest(newValue) }
        }
    }

    /// What went to the transport for an attempt.
    struct Transmission {
        let shared: SharedRequest
        var request: HTTPTransportRequest { shared.value }
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

        /// What an answer nobody decided about leads to: a success is delivered, a failure fails.
        init(_ result: Result<HTTPResponse, HTTPClientError>) {
            switch result {
            case .success(let response): self = .deliver(response)
            case .failure(let error): self = .fail(error)
            }
        }
    }

    /// What the send action does with an attempt past the last interceptor.
    enum Sending {
        /// The call ended meanwhile: nothing to send.
        case none
        /// The deadline passed before the attempt could be sent: the call ends.
        case ended(Ending)
        /// Send this request: the attempt's, its time-out no longer than the time left.
        case send(SharedRequest)
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

    /// What an event that moves an attempt along asks for: the next interceptor, the transport, or
    /// the answer's way back out. From `start`, `prepared`, `passed`, `notSent`, `transportAnswered`,
    /// and a replay.
    enum Step {
        case none
        /// Ask interceptor `step` about `attempt` (after releasing what the previous attempt left).
        case prepare(Attempt, step: Int, release: [Disposable])
        /// The interceptors let `attempt` through: the last checks, the transport.
        case send(Attempt, release: [Disposable])
        /// Run the answer back through the interceptors that let the attempt through.
        case answer(Attempt, Transmission?, Result<HTTPResponse, HTTPClientError>)
        /// Late `proceed`s of these interceptors after the call ended: each is owed a `didReceive`.
        case releaseLate(steps: Range<Int>)
    }

    /// What the interceptors' decision about an answer (or a refused request) leads to.
    enum Conclusion {
        case none
        /// Decode and deliver the response; release what the call held (its deadline timer).
        case deliver(HTTPResponse, release: [Disposable])
        /// A stream's head was accepted: deliver it; the body flows on.
        case open(HTTPResponse)
        /// Fail the call with `error`.
        case fail(HTTPClientError, release: [Disposable])
        /// Arm the wait's timer (and the host's recovery) for the next attempt.
        case wait(next: Int, delay: TimeInterval, after: HTTPClientError, release: [Disposable])
        /// Replay at once: the next attempt's first step.
        case replay(Step)
    }

    /// The end of a wait: tell it (with the failure it followed), then take the next attempt's
    /// first step.
    struct Resumption {
        let trigger: RetryTrigger
        let waited: TimeInterval
        let delay: TimeInterval
        let lastError: HTTPClientError?
        let next: Step
    }

    /// A delivered stream's body ended (with `failure`, if it failed): report the call's end.
    struct StreamEnd {
        let failure: HTTPClientError?
        let transmission: Transmission
        let release: [Disposable]
    }

    let interceptorCount: Int
    /// The request as the call built it: every attempt starts from it.
    let request: SharedRequest
    private var state = State.created
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
        self.request = SharedRequest(request)
        self.interceptorCount = interceptorCount
    }

    var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Whether the attempt being answered went to the transport.
    var isAnsweringATransmission: Bool {
        if case .answering(_, .some) = state { return true }
        return false
    }

    // MARK: Start

    mutating func start() -> Step {
        guard case .created = state else {
            // Its deadline may have passed before it started (a tiny one, on another thread).
            assert(isFinished, "a call starts once")
            return .none
        }
        return prepareFirst(number: 1, release: [])
    }

    /// The request could not be built: the call fails with `error` without an attempt (unless it was
    /// cancelled first).
    mutating func refuse(_ error: HTTPClientError) -> Conclusion {
        switch state {
        case .created:
            return finish { .fail(error, release: $0) }
        case .finished:
            return .none
        case .preparing, .sending, .answering, .waiting, .streaming:
            assertionFailure("a refused call never starts an attempt")
            return .none
        }
    }

    /// The call's deadline timer, once armed. Returns what to dispose: the timer, if the call
    /// already ended.
    mutating func deadlineArmed(_ timer: Disposable) -> Disposable? {
        guard !isFinished else { return timer }
        assert(deadlineTimer == nil, "the deadline is armed once")
        deadlineTimer = timer
        return nil
    }

    /// Starts attempt `number` at the first interceptor (releasing what the previous one left).
    private mutating func prepareFirst(number: Int, release: [Disposable]) -> Step {
        assert(number > latestAttempt, "attempts count up")
        let attempt = Attempt(number: number, shared: request, passed: 0)
        latestAttempt = number
        state = .preparing(attempt, step: 0, hold: nil)
        guard interceptorCount > 0 else {
            return proceedPast(attempt, release: release)
        }
        return .prepare(attempt, step: 0, release: release)
    }

    // MARK: Preparing

    /// Interceptor `step` decided about attempt `number`.
    mutating func prepared(step: Int, attempt number: Int, _ preparation: Preparation) -> Step {
        assert(step < interceptorCount, "no interceptor \(step)")
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
    mutating func passed(_ steps: Range<Int>, attempt number: Int) -> Step {
        assert(!steps.isEmpty && steps.upperBound <= interceptorCount, "no interceptors \(steps)")
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

    /// Interceptor `step` holds attempt `number`; `hold` cancels its wait. Returns what to dispose:
    /// the hold, if the attempt was decided already (it answered within `prepare`) or the call ended.
    mutating func holding(step: Int, attempt number: Int, _ hold: Disposable) -> Disposable? {
        guard case .preparing(let attempt, let current, let held) = state, current == step, attempt.number == number else {
            return hold
        }
        assert(held == nil, "one hold per step")
        state = .preparing(attempt, step: step, hold: hold)
        return nil
    }

    private mutating func proceedPast(_ attempt: Attempt, release: [Disposable]) -> Step {
        // Past the last interceptor; `sending` records the transmission when the transport gets it.
        state = .preparing(attempt, step: interceptorCount, hold: nil)
        return .send(attempt, release: release)
    }

    // MARK: Sending

    /// The send action is about to hand the attempt's request to the transport: within the call's
    /// `deadline`, the exchange may take no longer than the time left; past it, the call ends.
    mutating func sending(_ attempt: Attempt, at now: Date, deadline: Date?) -> Sending {
        guard case .preparing(let current, let step, nil) = state, step == interceptorCount, current.number == attempt.number else {
            assert(isFinished, "only the attempt past the last interceptor is sent")
            return .none
        }
        var shared = current.shared
        if let deadline {
            let timeLeft = deadline.timeIntervalSince(now)
            guard timeLeft > 0 else {
                return terminate(.deadline).map(Sending.ended) ?? .none
            }
            if timeLeft < shared.value.timeoutInterval {
                var bounded = shared.value
                bounded.timeoutInterval = timeLeft
                shared = SharedRequest(bounded)
            }
        }
        sends += 1
        state = .sending(current, Transmission(shared: shared, attempt: attempt.number, sentAt: now, exchange: nil))
        return .send(shared)
    }

    /// The send action could not send (a header failed validation): the attempt is answered with
    /// `error` without the transport.
    mutating func notSent(_ attempt: Attempt, error: HTTPClientError) -> Step {
        guard case .preparing(let current, let step, nil) = state, step == interceptorCount, current.number == attempt.number else {
            assert(isFinished, "only the attempt past the last interceptor is checked")
            return .none
        }
        state = .answering(current, nil)
        return .answer(current, nil, .failure(error))
    }

    /// The transport returned the exchange of attempt `number`. Returns what to dispose: the
    /// exchange, if the attempt was answered already (disposing a finished exchange does nothing)
    /// or the call ended.
    mutating func exchangeStarted(attempt number: Int, _ exchange: Disposable) -> Disposable? {
        switch state {
        case .sending(let attempt, var transmission) where attempt.number == number:
            assert(transmission.exchange == nil, "one exchange per attempt")
            transmission.exchange = exchange
            state = .sending(attempt, transmission)
            return nil
        case .answering(let attempt, var transmission?) where attempt.number == number && transmission.exchange == nil:
            // Answered while `send` was still returning: the answer decides what becomes of it.
            transmission.exchange = exchange
            state = .answering(attempt, transmission)
            return nil
        case .streaming(var transmission) where transmission.exchange == nil && transmission.attempt == number:
            // The head was accepted while `stream` was still returning: the body flows on it.
            transmission.exchange = exchange
            state = .streaming(transmission)
            return nil
        default:
            return exchange
        }
    }

    /// The transport answered attempt `number`.
    mutating func transportAnswered(attempt number: Int, _ result: Result<HTTPResponse, HTTPClientError>) -> Step {
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
    ) -> Conclusion {
        // Only the number is read here, and the transmission only where it is kept or released:
        // binding the whole case would copy what it holds (a retain per field) on every answer.
        guard case .answering(let attempt, _) = state, attempt.number == number else {
            // Only a cancel ends a call while its answer is decided.
            assert(isFinished, "only the attempt being answered is decided")
            return .none
        }
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
            return .replay(prepareFirst(number: number + 1, release: answeredExchange))
        }
    }

    /// Folds one interceptor's verdict into the answer on its way back out: the result goes on
    /// (replaced, maybe), or the round is decided and nobody further out is asked.
    static func fold(_ verdict: HTTPInterceptorVerdict, into result: inout Result<HTTPResponse, HTTPClientError>) -> Decision? {
        switch verdict {
        case .proceed:
            return nil
        case .replace(let replacement):
            result = replacement
            return nil
        case .retry(let delay):
            return .retry(after: TimeoutBounds.clampedWait(delay), error: result.failureForRepeat)
        case .replay:
            return .replay(result.failureForRepeat)
        case .stop(let error):
            return .fail(error)
        }
    }

    /// The exchange of the attempt being answered, which a refused answer releases (a stream's
    /// exchange is still live after its head: only a delivered head keeps it).
    private var answeredExchange: [Disposable] {
        guard case .answering(_, let transmission?) = state, let exchange = transmission.exchange else { return [] }
        return [exchange]
    }

    // MARK: Waiting

    /// The wait before attempt `next` is armed: its timer and, maybe, the host's recovery. Returns
    /// what to dispose: both, if the wait ended meanwhile (the host was back at once) or the call
    /// ended.
    mutating func waitArmed(next: Int, timer: Disposable?, recovery: Disposable?) -> Disposable? {
        guard case .waiting(var wait) = state, wait.next == next else {
            return Disposables.create([timer, recovery].compactMap { $0 })
        }
        assert(wait.timer == nil && wait.recovery == nil, "a wait is armed once")
        wait.timer = timer
        wait.recovery = recovery
        state = .waiting(wait)
        return nil
    }

    /// The wait before attempt `next` ended (the first of the timer and the host's recovery wins).
    mutating func waitEnded(next: Int, trigger: RetryTrigger, at now: Date) -> Resumption? {
        guard case .waiting(let wait) = state, wait.next == next else { return nil }
        let release = [wait.timer, wait.recovery].compactMap { $0 }
        let waited = max(0, now.timeIntervalSince(wait.startedAt))
        let step = prepareFirst(number: wait.next, release: release)
        return Resumption(trigger: trigger, waited: waited, delay: wait.delay, lastError: lastError, next: step)
    }

    // MARK: Streaming

    /// A delivered stream's body ended (or failed, or its reader gave up).
    mutating func streamEnded(failure: HTTPClientError?) -> StreamEnd? {
        guard case .streaming(let transmission) = state else { return nil }
        state = .finished
        return StreamEnd(failure: failure, transmission: transmission, release: takeDeadline() + (transmission.exchange.map { [$0] } ?? []))
    }

    // MARK: Ending early

    /// Ends the call for `reason` (a cancel, the deadline, a shutdown) as its current case allows;
    /// nil when it does not end (finished, or a case that lets `reason` pass).
    mutating func terminate(_ reason: Termination) -> Ending? {
        let ending = ending(reason)
        if ending != nil { endedBy = reason }
        return ending
    }

    private mutating func ending(_ reason: Termination) -> Ending? {
        switch state {
        case .finished:
            return nil
        case .created:
            state = .finished
            return Ending(reason: reason, release: takeDeadline(), unwind: nil, wasSending: false)
        case .preparing(let attempt, _, let hold):
            state = .finished
            return Ending(
                reason: reason, release: takeDeadline() + (hold.map { [$0] } ?? []),
                unwind: attempt.passed > 0 ? Unwind(attempt: attempt, transmission: nil) : nil, wasSending: false
            )
        case .sending(let attempt, let transmission):
            // In flight: a shutdown lets it finish (the grace period ends it); a deadline or a
            // cancel cuts it.
            guard reason != .shutdown else { return nil }
            state = .finished
            return Ending(
                reason: reason, release: takeDeadline() + (transmission.exchange.map { [$0] } ?? []),
                unwind: Unwind(attempt: attempt, transmission: transmission), wasSending: true
            )
        case .answering(_, let transmission):
            // The answering thread is telling the interceptors; it unwinds the attempt itself. A
            // deadline or shutdown lets the answer through. A stream's body is cut.
            guard reason == .cancelled else { return nil }
            state = .finished
            return Ending(reason: reason, release: takeDeadline() + (transmission?.exchange.map { [$0] } ?? []), unwind: nil, wasSending: false)
        case .waiting(let wait):
            state = .finished
            return Ending(reason: reason, release: takeDeadline() + [wait.timer, wait.recovery].compactMap { $0 }, unwind: nil, wasSending: false)
        case .streaming(let transmission):
            // The head was delivered: a cancel (the reader left) or the grace period's end cuts the
            // body; a deadline does not (the stream's idle time-out bounds it).
            guard reason != .deadline else { return nil }
            state = .finished
            return Ending(
                reason: reason, release: takeDeadline() + (transmission.exchange.map { [$0] } ?? []),
                unwind: nil, wasSending: false, stream: transmission
            )
        }
    }

    /// The client began shutting down: a call that has not been sent, or waits to retry, ends; one
    /// in flight goes on (its failure will not be retried).
    mutating func clientIsShuttingDown() -> Ending? {
        switch state {
        case .created, .preparing, .waiting: terminate(.shutdown)
        case .sending, .answering, .streaming, .finished: nil
        }
    }

    /// The shutdown's grace period ended: whatever is left ends.
    mutating func gracePeriodEnded() -> Ending? {
        switch state {
        case .sending(let attempt, let transmission):
            state = .finished
            endedBy = .shutdown
            return Ending(
                reason: .shutdown, release: takeDeadline() + (transmission.exchange.map { [$0] } ?? []),
                unwind: Unwind(attempt: attempt, transmission: transmission), wasSending: true
            )
        case .answering:
            return nil
        default:
            return terminate(.shutdown)
        }
    }

    private mutating func takeDeadline() -> [Disposable] {
        defer { deadlineTimer = nil }
        return deadlineTimer.map { [$0] } ?? []
    }

    /// Moves to `finished`, handing what is to be released to `make`.
    private mutating func finish(_ make: ([Disposable]) -> Conclusion) -> Conclusion {
        state = .finished
        return make(takeDeadline())
    }
}

extension Result where Success == HTTPResponse, Failure == HTTPClientError {
    /// The error a repeat follows: the failure, or for an answer an interceptor wants repeated, the
    /// answer as an unacceptable status.
    var failureForRepeat: HTTPClientError {
        switch self {
        case .failure(let error):
            return error
        case .success(let response):
            return HTTPClientError(
                .unacceptableStatusCode, message: "an interceptor asked to send again after status \(response.statusCode)",
                statusCode: response.statusCode, body: response.body, url: response.url, headers: response.headers
            )
        }
    }
}
