import Foundation
import RxCore
import Synchronization
@testable import RxHTTP
import XCTest

/// Every transition of `CallStateMachine`, and the races between them, without a transport, a clock
/// or an interceptor: events in, actions out.
final class CallStateMachineTests: XCTestCase {
    private let request = HTTPTransportRequest(url: URL(string: "https://api.test/x")!)
    private let now = Date(timeIntervalSince1970: 1_000)
    private let response = HTTPResponse(statusCode: 200, headers: [:], body: Data(), url: nil)
    private let failure = HTTPClientError(.transport, message: "refused", phase: .notSent)

    private func machine(interceptors: Int = 3) -> CallStateMachine {
        CallStateMachine(request: request, interceptorCount: interceptors)
    }

    private func answered(_ machine: inout CallStateMachine, _ decision: CallStateMachine.Decision, attempt: Int = 1,
                          stream: Bool = false, shuttingDown: Bool = false) -> CallStateMachine.Conclusion {
        machine.answered(attempt: attempt, decision, isStream: stream, isShuttingDown: shuttingDown, at: now) { error in
            HTTPClientError(.shutdown, underlying: error)
        }
    }

    /// Runs attempt `number` through every interceptor and hands it to the transport.
    private func send(_ machine: inout CallStateMachine, attempt number: Int = 1) -> CallStateMachine.Attempt {
        var attempt: CallStateMachine.Attempt?
        for step in 0..<machine.interceptorCount {
            let action = machine.prepared(step: step, attempt: number, .proceed(request))
            if case .send(let next, _) = action { attempt = next }
        }
        guard let attempt else {
            XCTFail("the attempt was not sent")
            return CallStateMachine.Attempt(number: number, request: request, passed: 0)
        }
        guard case .send = machine.sending(attempt, at: now, deadline: nil) else {
            XCTFail("not sent")
            return attempt
        }
        return attempt
    }

    // MARK: A request that could not be built

    func testARefusedCallFailsWithoutAnAttemptAndOnlyOnce() {
        var machine = machine()
        guard case .fail(let error, let release) = machine.refuse(failure) else { return XCTFail("not failed") }
        XCTAssertEqual(error.code, .transport)
        XCTAssertTrue(release.isEmpty)
        XCTAssertTrue(machine.isFinished)
        XCTAssertEqual(machine.sends, 0)
        XCTAssertEqual(machine.latestAttempt, 0)
        guard case .none = machine.refuse(failure) else { return XCTFail("refused twice") }
        guard case .none = machine.terminate(.cancelled) else { return XCTFail("cancelled after the refusal") }
        XCTAssertFalse(machine.cancelled)
    }

    func testACancelBeforeTheRefusalIsReportedWins() {
        var machine = machine()
        guard let ending = machine.terminate(.cancelled) else { return XCTFail("not ended") }
        XCTAssertNil(ending.unwind)
        guard case .none = machine.refuse(failure) else { return XCTFail("refused after the cancel") }
        XCTAssertTrue(machine.cancelled)
    }

    func testTheLatestAttemptCountsReplaysAndRetriesButNotSends() {
        var machine = machine(interceptors: 1)
        _ = machine.start()
        let first = send(&machine)
        _ = machine.transportAnswered(attempt: first.number, .failure(failure))
        guard case .replay(.prepare) = answered(&machine, .replay(failure)) else { return XCTFail("not replayed") }
        XCTAssertEqual(machine.latestAttempt, 2)
        let second = send(&machine, attempt: 2)
        _ = machine.transportAnswered(attempt: second.number, .failure(failure))
        guard case .wait(let next, _, _, _) = answered(&machine, .retry(after: 1, error: failure), attempt: 2) else {
            return XCTFail("no wait")
        }
        XCTAssertEqual(next, 3)
        // Waiting: the latest attempt is still the one that failed.
        XCTAssertEqual(machine.latestAttempt, 2)
        XCTAssertEqual(machine.sends + machine.replays, 3)
    }

    // MARK: The deadline before sending

    func testAnAttemptSentNearTheDeadlineMayTakeOnlyTheTimeLeft() {
        var machine = machine(interceptors: 0)
        guard case .send(let attempt, _) = machine.start() else { return XCTFail() }
        XCTAssertEqual(attempt.request.timeoutInterval, 60)
        guard case .send(let sent) = machine.sending(attempt, at: now, deadline: now.addingTimeInterval(2.5)) else {
            return XCTFail("not sent")
        }
        XCTAssertEqual(sent.value.timeoutInterval, 2.5)
        XCTAssertEqual(sent.value.url, attempt.request.url)
        XCTAssertEqual(machine.sends, 1)
    }

    func testAnInterceptorsShorterTimeOutIsKeptNearTheDeadline() {
        var machine = machine(interceptors: 1)
        _ = machine.start()
        var shortened = request
        shortened.timeoutInterval = 1
        guard case .send(let attempt, _) = machine.prepared(step: 0, attempt: 1, .proceed(shortened)) else { return XCTFail() }
        guard case .send(let sent) = machine.sending(attempt, at: now, deadline: now.addingTimeInterval(5)) else {
            return XCTFail("not sent")
        }
        XCTAssertEqual(sent.value.timeoutInterval, 1, "5 s left do not lengthen a time-out of 1 s")
    }

    func testAnAttemptWhoseDeadlinePassedIsNotSentAndTheCallEnds() {
        var machine = machine(interceptors: 0)
        let timer = DisposeRecorder()
        XCTAssertNil(machine.deadlineArmed(timer))
        guard case .send(let attempt, _) = machine.start() else { return XCTFail() }
        guard case .ended(let ending) = machine.sending(attempt, at: now, deadline: now) else {
            return XCTFail("sent past the deadline")
        }
        XCTAssertEqual(ending.reason, .deadline)
        XCTAssertFalse(ending.wasSending)
        ending.release.forEach { $0.dispose() }
        XCTAssertEqual(timer.disposals, 1)
        XCTAssertEqual(machine.sends, 0)
        XCTAssertTrue(machine.isFinished)
    }

    // MARK: Folding the verdicts

    func testVerdictsFoldIntoTheAnswerUntilOneDecides() {
        var result: Result<HTTPResponse, HTTPClientError> = .failure(failure)
        XCTAssertNil(CallStateMachine.fold(.proceed, into: &result))
        XCTAssertNil(CallStateMachine.fold(.replace(.success(response)), into: &result))
        guard case .success(let replaced) = result, replaced.statusCode == 200 else { return XCTFail("not replaced") }
        // A repeat after an answer follows it as an unacceptable status.
        guard case .replay(let replayError)? = CallStateMachine.fold(.replay, into: &result) else { return XCTFail() }
        XCTAssertEqual(replayError.code, .unacceptableStatusCode)
        XCTAssertEqual(replayError.statusCode, 200)
        guard case .retry(let delay, _)? = CallStateMachine.fold(.retry(after: -5), into: &result) else { return XCTFail() }
        XCTAssertEqual(delay, 0, "a negative wait is clamped")
        guard case .fail(let stopped)? = CallStateMachine.fold(.stop(failure), into: &result) else { return XCTFail() }
        XCTAssertEqual(stopped.code, .transport)
        guard case .deliver = CallStateMachine.Decision(result) else { return XCTFail() }
        guard case .fail = CallStateMachine.Decision(.failure(failure)) else { return XCTFail() }
    }

    // MARK: The happy path

    func testAdmittedSignedSentAnsweredDelivered() {
        var machine = machine()
        guard case .prepare(let first, 0, _) = machine.start() else { return XCTFail("no first step") }
        XCTAssertEqual(first.number, 1)
        // admitted (suspension, host), signed (authentication): each interceptor in turn
        guard case .prepare(_, 1, _) = machine.prepared(step: 0, attempt: 1, .proceed(request)) else { return XCTFail() }
        guard case .prepare(_, 2, _) = machine.prepared(step: 1, attempt: 1, .proceed(request)) else { return XCTFail() }
        var signed = request
        signed.setValue("Bearer t", forHTTPHeaderField: "Authorization")
        guard case .send(let attempt, _) = machine.prepared(step: 2, attempt: 1, .proceed(signed)) else { return XCTFail() }
        XCTAssertEqual(attempt.passed, 3)
        XCTAssertEqual(attempt.request.value(forHTTPHeaderField: "Authorization"), "Bearer t")
        // sent
        guard case .send(let sent) = machine.sending(attempt, at: now, deadline: nil) else { return XCTFail() }
        XCTAssertTrue(sent === attempt.shared, "sent as the interceptors left it, not copied")
        XCTAssertEqual(machine.sends, 1)
        let exchange = DisposeRecorder()
        guard case .none = machine.exchangeStarted(attempt: 1, exchange) else { return XCTFail() }
        // answered
        guard case .answer(let answered, let transmission?, .success) = machine.transportAnswered(attempt: 1, .success(response)) else {
            return XCTFail("no answer")
        }
        XCTAssertEqual(answered.passed, 3)
        XCTAssertNotNil(transmission.exchange)
        XCTAssertEqual(machine.lastStatus, 200)
        // delivered
        guard case .deliver(_, let release) = self.answered(&machine, .deliver(response)) else { return XCTFail() }
        XCTAssertTrue(release.isEmpty, "a finished buffered exchange needs no cancel")
        XCTAssertTrue(machine.isFinished)
        XCTAssertEqual(exchange.disposals, 0)
    }

    func testWithoutInterceptorsTheAttemptGoesStraightToTheTransport() {
        var machine = machine(interceptors: 0)
        guard case .send(let attempt, _) = machine.start() else { return XCTFail() }
        XCTAssertEqual(attempt.passed, 0)
    }

    func testAFailureIsDeliveredAndReleasesTheDeadline() {
        var machine = machine()
        let deadline = DisposeRecorder()
        _ = machine.deadlineArmed(deadline)
        _ = machine.start()
        _ = send(&machine)
        _ = machine.transportAnswered(attempt: 1, .failure(failure))
        guard case .fail(let error, let release) = answered(&machine, .fail(failure)) else { return XCTFail() }
        XCTAssertEqual(error.code, .transport)
        release.forEach { $0.dispose() }
        XCTAssertEqual(deadline.disposals, 1)
    }

    // MARK: Interceptors answering, refusing, holding

    func testAnInterceptorAnswerSkipsTheTransportAndGoesToThoseBeforeIt() {
        var machine = machine()
        _ = machine.start()
        _ = machine.prepared(step: 0, attempt: 1, .proceed(request))
        guard case .answer(let attempt, nil, .success) = machine.prepared(step: 1, attempt: 1, .answer(response)) else { return XCTFail() }
        XCTAssertEqual(attempt.passed, 1, "only the first interceptor let it through")
        XCTAssertEqual(machine.sends, 0)
    }

    func testARefusalBeforeSendingIsAnAnswerWithoutTransport() {
        var machine = machine()
        _ = machine.start()
        guard case .answer(let attempt, nil, .failure(let error)) = machine.prepared(step: 0, attempt: 1, .fail(failure)) else { return XCTFail() }
        XCTAssertEqual(attempt.passed, 0)
        XCTAssertEqual(error.code, .transport)
    }

    func testAHoldIsKeptUntilTheDecisionAndCancelledByACancel() {
        var machine = machine()
        _ = machine.start()
        let hold = DisposeRecorder()
        guard case .none = machine.holding(step: 0, attempt: 1, hold) else { return XCTFail() }
        guard let ending = machine.terminate(.cancelled) else { return XCTFail() }
        ending.release.forEach { $0.dispose() }
        XCTAssertEqual(hold.disposals, 1)
        XCTAssertNil(ending.unwind, "nobody let the attempt through yet")
        XCTAssertTrue(machine.cancelled)
    }

    func testAHoldReportedAfterTheDecisionIsDisposed() {
        var machine = machine()
        _ = machine.start()
        _ = machine.prepared(step: 0, attempt: 1, .proceed(request))
        let hold = DisposeRecorder()
        guard machine.holding(step: 0, attempt: 1, hold) != nil else { return XCTFail("a stale hold is kept") }
    }

    func testCancellingMidPreparationUnwindsTheInterceptorsThatLetItThrough() {
        var machine = machine()
        _ = machine.start()
        _ = machine.prepared(step: 0, attempt: 1, .proceed(request))
        _ = machine.prepared(step: 1, attempt: 1, .proceed(request))
        guard let ending = machine.terminate(.cancelled) else { return XCTFail() }
        XCTAssertEqual(ending.unwind?.attempt.passed, 2)
        XCTAssertNil(ending.unwind?.transmission)
    }

    func testALateProceedAfterTheEndIsOwedARelease() {
        var machine = machine()
        _ = machine.start()
        _ = machine.terminate(.cancelled)
        guard case .releaseLate(let steps) = machine.prepared(step: 0, attempt: 1, .proceed(request)) else {
            return XCTFail("an interceptor that granted something after the cancel is never told")
        }
        XCTAssertEqual(steps, 0..<1)
        guard case .none = machine.prepared(step: 0, attempt: 1, .fail(failure)) else { return XCTFail() }
    }

    func testInterceptorsThatDecideAtOnceAreOneTransitionAndChangeNoHeaders() {
        var machine = machine()
        _ = machine.start()
        guard case .prepare(let attempt, 2, _) = machine.passed(0..<2, attempt: 1) else { return XCTFail() }
        XCTAssertEqual(attempt.passed, 2)
        XCTAssertFalse(attempt.headersChanged, "nothing to check again before sending")
        guard case .send(let sent, _) = machine.prepared(step: 2, attempt: 1, .proceed(request)) else { return XCTFail() }
        XCTAssertTrue(sent.headersChanged, "a request an interceptor handed back is checked again")
        // a fast run that ends after a cancel owes each of its interceptors a didReceive
        var cancelled = self.machine()
        _ = cancelled.start()
        _ = cancelled.terminate(.cancelled)
        guard case .releaseLate(let steps) = cancelled.passed(0..<3, attempt: 1) else { return XCTFail() }
        XCTAssertEqual(steps, 0..<3)
    }

    func testASecondDecisionOfTheSameStepIsIgnored() {
        var machine = machine()
        _ = machine.start()
        _ = machine.prepared(step: 0, attempt: 1, .proceed(request))
        guard case .none = machine.prepared(step: 0, attempt: 1, .proceed(request)) else { return XCTFail() }
    }

    // MARK: Sending races

    func testAnExchangeReturnedAfterTheEndIsCancelled() {
        var machine = machine()
        _ = machine.start()
        let attempt = send(&machine)
        _ = attempt
        guard let ending = machine.terminate(.cancelled) else { return XCTFail() }
        XCTAssertTrue(ending.wasSending)
        XCTAssertNotNil(ending.unwind?.transmission, "willSend's plugins are owed a didReceive")
        let exchange = DisposeRecorder()
        guard let late = machine.exchangeStarted(attempt: 1, exchange) else { return XCTFail() }
        late.dispose()
        XCTAssertEqual(exchange.disposals, 1)
    }

    func testAnAnswerBeforeSendReturnsKeepsTheExchangeWithTheAnswer() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        _ = machine.transportAnswered(attempt: 1, .success(response))
        let exchange = DisposeRecorder()
        guard case .none = machine.exchangeStarted(attempt: 1, exchange) else { return XCTFail("the stream would lose its body") }
        guard case .open = answered(&machine, .deliver(response), stream: true) else { return XCTFail() }
        // The stream's exchange is the one the reader's cancel releases.
        guard let ending = machine.terminate(.cancelled), ending.stream?.exchange != nil else { return XCTFail() }
        ending.release.forEach { $0.dispose() }
        XCTAssertEqual(exchange.disposals, 1)
    }

    func testAShutdownLetsAnAttemptInFlightFinishButNotRetry() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        guard case .none = machine.clientIsShuttingDown() else { return XCTFail("in flight is cut by a shutdown") }
        _ = machine.transportAnswered(attempt: 1, .failure(failure))
        guard case .fail(let error, _) = answered(&machine, .retry(after: 1, error: failure), shuttingDown: true) else { return XCTFail() }
        XCTAssertEqual(error.code, .shutdown)
    }

    func testTheGracePeriodsEndCutsAnAttemptInFlight() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        let exchange = DisposeRecorder()
        _ = machine.exchangeStarted(attempt: 1, exchange)
        guard let ending = machine.gracePeriodEnded() else { return XCTFail() }
        XCTAssertEqual(ending.reason, .shutdown)
        XCTAssertTrue(ending.wasSending)
        ending.release.forEach { $0.dispose() }
        XCTAssertEqual(exchange.disposals, 1)
    }

    func testTheDeadlineCutsAnAttemptInFlight() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        guard let ending = machine.terminate(.deadline) else { return XCTFail() }
        XCTAssertEqual(ending.reason, .deadline)
        guard case .none = machine.transportAnswered(attempt: 1, .success(response)) else { return XCTFail("answered after the end") }
    }

    func testAChecksFailureBeforeSendingIsAnAnswer() {
        var machine = machine(interceptors: 1)
        _ = machine.start()
        guard case .send(let attempt, _) = machine.prepared(step: 0, attempt: 1, .proceed(request)) else { return XCTFail() }
        guard case .answer(_, nil, .failure) = machine.notSent(attempt, error: failure) else { return XCTFail() }
    }

    // MARK: Answering races

    func testACancelWhileAnsweringDeliversCancelledAndTheLateDecisionIsIgnored() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        _ = machine.transportAnswered(attempt: 1, .success(response))
        guard let ending = machine.terminate(.cancelled) else { return XCTFail() }
        XCTAssertNil(ending.unwind, "the answering thread tells the interceptors itself")
        guard case .none = answered(&machine, .deliver(response)) else { return XCTFail() }
    }

    func testADeadlineOrShutdownWhileAnsweringLetsTheAnswerThrough() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        _ = machine.transportAnswered(attempt: 1, .success(response))
        guard case .none = machine.terminate(.deadline) else { return XCTFail() }
        guard case .none = machine.clientIsShuttingDown() else { return XCTFail() }
        guard case .deliver = answered(&machine, .deliver(response)) else { return XCTFail() }
    }

    // MARK: Retry, replay, wait

    func testARetryWaitsThenTheTimerStartsTheNextAttempt() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        _ = machine.transportAnswered(attempt: 1, .failure(failure))
        guard case .wait(let next, let delay, _, _) = answered(&machine, .retry(after: 2, error: failure)) else { return XCTFail() }
        XCTAssertEqual(next, 2)
        XCTAssertEqual(delay, 2)
        let timer = DisposeRecorder(), recovery = DisposeRecorder()
        guard case .none = machine.waitArmed(next: 2, timer: timer, recovery: recovery) else { return XCTFail() }
        guard let resumption = machine.waitEnded(next: 2, trigger: .timer, at: now.addingTimeInterval(2)),
              case .prepare(let attempt, 0, let release) = resumption.next else {
            return XCTFail()
        }
        XCTAssertEqual(resumption.trigger, .timer)
        XCTAssertEqual(resumption.delay, 2)
        XCTAssertEqual(resumption.waited, 2)
        XCTAssertEqual(resumption.lastError?.code, .transport)
        XCTAssertEqual(attempt.number, 2)
        release.forEach { $0.dispose() }
        XCTAssertEqual(recovery.disposals, 1, "the other way to end the wait is given up")
        // the host coming back a moment later finds nothing to do
        guard case .none = machine.waitEnded(next: 2, trigger: .reachability, at: now) else { return XCTFail("two new attempts") }
        _ = send(&machine, attempt: 2)
        XCTAssertEqual(machine.sends, 2)
    }

    func testAWaitEndedBeforeItWasArmedDisposesTheLateTimer() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        _ = machine.transportAnswered(attempt: 1, .failure(failure))
        _ = answered(&machine, .retry(after: 0.5, error: failure))
        _ = machine.waitEnded(next: 2, trigger: .reachability, at: now)
        let timer = DisposeRecorder()
        guard let late = machine.waitArmed(next: 2, timer: timer, recovery: nil) else { return XCTFail() }
        late.dispose()
        XCTAssertEqual(timer.disposals, 1)
    }

    func testCancellingOrShuttingDownWhileWaitingReleasesTheWait() {
        for reason in [CallStateMachine.Termination.cancelled, .shutdown, .deadline] {
            var machine = machine()
            _ = machine.start()
            _ = send(&machine)
            _ = machine.transportAnswered(attempt: 1, .failure(failure))
            _ = answered(&machine, .retry(after: 5, error: failure))
            let timer = DisposeRecorder()
            _ = machine.waitArmed(next: 2, timer: timer, recovery: nil)
            let action = reason == .shutdown ? machine.clientIsShuttingDown() : machine.terminate(reason)
            guard let ending = action else { return XCTFail("\(reason)") }
            XCTAssertEqual(ending.reason, reason)
            ending.release.forEach { $0.dispose() }
            XCTAssertEqual(timer.disposals, 1, "\(reason)")
            XCTAssertEqual(machine.lastError?.code, .transport, "the deadline's error tells the last failure")
        }
    }

    func testAReplayStartsAtTheFirstInterceptorAndIsNotCounted() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        let unauthorized = HTTPClientError(.unacceptableStatusCode, statusCode: 401)
        _ = machine.transportAnswered(attempt: 1, .failure(unauthorized))
        guard case .replay(.prepare(let next, 0, _)) = answered(&machine, .replay(unauthorized)) else { return XCTFail() }
        XCTAssertEqual(next.number, 2)
        XCTAssertEqual(machine.replays, 1)
        XCTAssertEqual(machine.lastStatus, 401)
    }

    /// Attempt 1 of a stream sent, its exchange returned, answered with a failure, then decided.
    private func answeredWithExchange(
        _ decision: CallStateMachine.Decision, shuttingDown: Bool = false
    ) -> (CallStateMachine.Conclusion, DisposeRecorder) {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        let exchange = DisposeRecorder()
        _ = machine.exchangeStarted(attempt: 1, exchange)
        _ = machine.transportAnswered(attempt: 1, .failure(failure))
        return (answered(&machine, decision, stream: true, shuttingDown: shuttingDown), exchange)
    }

    func testARefusedStreamHeadReleasesItsExchange() {
        let (retried, retriedExchange) = answeredWithExchange(.retry(after: 1, error: failure))
        guard case .wait(_, _, _, let retryRelease) = retried else { return XCTFail("\(retried)") }
        retryRelease.forEach { $0.dispose() }
        XCTAssertEqual(retriedExchange.disposals, 1)

        let (failed, failedExchange) = answeredWithExchange(.fail(failure))
        guard case .fail(_, let failedRelease) = failed else { return XCTFail("\(failed)") }
        failedRelease.forEach { $0.dispose() }
        XCTAssertEqual(failedExchange.disposals, 1)

        let (replayed, replayedExchange) = answeredWithExchange(.replay(failure))
        guard case .replay(.prepare(let next, 0, let replayRelease)) = replayed else { return XCTFail("\(replayed)") }
        XCTAssertEqual(next.number, 2)
        replayRelease.forEach { $0.dispose() }
        XCTAssertEqual(replayedExchange.disposals, 1)

        let (shutDown, shutDownExchange) = answeredWithExchange(.retry(after: 1, error: failure), shuttingDown: true)
        guard case .fail(_, let shutDownRelease) = shutDown else { return XCTFail("\(shutDown)") }
        shutDownRelease.forEach { $0.dispose() }
        XCTAssertEqual(shutDownExchange.disposals, 1)
    }

    func testAStreamsDeliveredHeadKeepsItsExchange() {
        let (delivered, deliveredExchange) = answeredWithExchange(.deliver(response))
        guard case .open = delivered else { return XCTFail("\(delivered)") }
        XCTAssertEqual(deliveredExchange.disposals, 0)
    }

    // MARK: Streams

    func testAStreamEndsWhenItsBodyEndsAndTheReaderCanCutIt() {
        var machine = machine()
        _ = machine.start()
        _ = send(&machine)
        let exchange = DisposeRecorder()
        _ = machine.exchangeStarted(attempt: 1, exchange)
        _ = machine.transportAnswered(attempt: 1, .success(response))
        guard case .open = answered(&machine, .deliver(response), stream: true) else { return XCTFail() }
        guard case .none = machine.terminate(.deadline) else { return XCTFail("the deadline does not bound a delivered body") }
        guard let end = machine.streamEnded(failure: nil), end.failure == nil else { return XCTFail() }
        let release = end.release
        release.forEach { $0.dispose() }
        XCTAssertTrue(machine.isFinished)

        var cut = self.machine()
        _ = cut.start()
        _ = send(&cut)
        _ = cut.exchangeStarted(attempt: 1, exchange)
        _ = cut.transportAnswered(attempt: 1, .success(response))
        _ = answered(&cut, .deliver(response), stream: true)
        guard let ending = cut.terminate(.cancelled) else { return XCTFail() }
        XCTAssertNotNil(ending.stream)
    }

    func testEndingTwiceEndsOnce() {
        var machine = machine()
        _ = machine.start()
        guard machine.terminate(.cancelled) != nil else { return XCTFail() }
        guard case .none = machine.terminate(.deadline) else { return XCTFail() }
        guard case .none = machine.gracePeriodEnded() else { return XCTFail() }
        guard case .none = machine.start() else { return XCTFail() }
    }
}

/// Counts its disposals.
private final class DisposeRecorder: Disposable, Sendable {
    private let count = Atomic<Int>(0)

    var disposals: Int { count.load(ordering: .relaxed) }

    func dispose() {
        count.add(1, ordering: .relaxed)
    }
}
