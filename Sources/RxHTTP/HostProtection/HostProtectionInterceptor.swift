import Foundation
import RxCore

/// Host protection as an interceptor: before each attempt the host's `HostGate` admits it (at once,
/// after a cooldown or a place in the queue) or refuses it (`.circuitOpen`, `.rejected`, a cooldown
/// past the deadline); after it, the attempt's slot goes back with what the answer says about the
/// server's health, and a 429 or 503 with `Retry-After` — or any answer saying the server's rate limit
/// is spent — pauses the host for every call.
struct HostProtectionInterceptor: ImmediateInterceptor {
    /// The slot the attempt holds, from admission to its answer.
    static let slotKey = HTTPCallKey<HostGate.Slot>("host slot")

    func prepareAtOnce(_ request: HTTPTransportRequest, for call: HTTPCall) -> ImmediateDecision? {
        guard let gate = call.plan.gate else { return .pass }
        guard let slot = gate.admitAtOnce(bypassesQueue: call.plan.bypassesSuspension, isFirstAttempt: call.sends == 0, now: call.now) else {
            return nil
        }
        if slot != .untracked {
            call.setValue(slot, for: Self.slotKey)
        }
        return .pass
    }

    private func granted(_ slot: HostGate.Slot, gate: HostGate, call: HTTPCall) {
        if slot != HostGate.Slot.untracked {
            call.setValue(slot, for: Self.slotKey)
        }
        if call.sends == 0 {
            gate.depositFirstAttempt(now: call.now)
        }
    }

    func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        guard let gate = call.plan.gate else {
            completion(.proceed(request))
            return nil
        }
        return gate.admit(
            bypassesQueue: call.plan.bypassesSuspension, deadlineAt: call.deadline, scheduler: call.client.clock,
            onHold: { [weak call] reason in call?.noteHeld(reason) }
        ) { admission in
            switch admission {
            case .granted(let slot):
                granted(slot, gate: gate, call: call)
                completion(.proceed(request))
            case .refused(let error):
                completion(.fail(error))
            }
        }
    }

    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
        guard let gate = call.plan.gate else { return .proceed }
        let now = call.now
        let slot = call.takeValue(for: Self.slotKey) ?? .untracked
        if gate.needsRelease(slot) {
            gate.release(slot, outcome: HostGate.Outcome(result), now: now)
        }
        let cap = call.retryPolicy.maxRetryAfter
        switch result {
        case .failure(let error):
            gate.noteRetryAfter(error, cap: cap, now: now)
            if let headers = error.headers { gate.noteRateLimitHeaders(headers, cap: cap, now: now) }
        case .success(let response):
            if response.statusCode == 429 || response.statusCode == 503 {
                let answer = HTTPClientError(.unacceptableStatusCode, statusCode: response.statusCode, headers: response.headers)
                gate.noteRetryAfter(answer, cap: cap, now: now)
            }
            gate.noteRateLimitHeaders(response.headers, cap: cap, now: now)
        }
        return .proceed
    }
}
