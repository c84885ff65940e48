import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// Authentication as an interceptor, closest to the network: before each attempt of a call that
/// requires authentication it asks the client's `Authenticator` for a ticket (which may wait for a
/// refresh) and signs the request with it; after an unauthorized answer it replays the call once,
/// asking the authenticator for the ticket that replaces the refused one (a refresh, or the current
/// one if the refused one was merely stale). A second unauthorized answer is an ordinary failure.
struct AuthenticationInterceptor: HTTPInterceptor {
    /// The ticket the current attempt is signed with.
    static let ticketKey = HTTPCallKey<AuthenticationTicket>("authentication ticket")
    /// A ticket refused by the server, which the next attempt asks to replace.
    static let refusedKey = HTTPCallKey<AuthenticationTicket>("refused ticket")
    /// Set once the call was replayed after an unauthorized answer.
    static let replayedKey = HTTPCallKey<Bool>("replayed after unauthorized")

    let authenticator: any Authenticator

    func prepare(
        _ request: HTTPTransportRequest,
        for call: HTTPCall,
        completion: @escaping @Sendable (HTTPInterceptorPreparation) -> Void
    ) -> Disposable? {
        guard call.requiresAuthentication else {
            completion(.proceed(request))
            return nil
        }
        let wait = TicketWait()
        wait.ask(authenticator, replacing: call.takeValue(for: Self.refusedKey)) { result in
            switch result {
            case .success(let ticket):
                var signed = request
                signed.setValue(ticket.headerValue, forHTTPHeaderField: ticket.headerName)
                call.setValue(ticket, for: Self.ticketKey)
                completion(.proceed(signed))
            case .failure(let error):
                completion(.fail(error))
            }
        }
        guard !wait.isAnswered else { return nil }
        call.noteHeld(.credential)
        return wait
    }

    func didReceive(_ result: Result<HTTPResponse, HTTPClientError>, for call: HTTPCall) -> HTTPInterceptorVerdict {
        let ticket = call.takeValue(for: Self.ticketKey)
        guard let ticket, case .failure(let error) = result, let status = error.statusCode,
              authenticator.unauthorizedStatusCodes.contains(status),
              call.value(for: Self.replayedKey) == nil else { return .proceed }
        call.setValue(true, for: Self.replayedKey)
        call.setValue(ticket, for: Self.refusedKey)
        return .replay
    }
}

/// One wait for a ticket: asks again if a refresh began since the ticket was handed out (nothing
/// goes out with the credential it replaces), answers once, and cancels the authenticator's wait
/// when disposed.
// @unchecked Sendable: mutable state lives in one LockedState.
final class TicketWait: Disposable, @unchecked Sendable {
    private struct State {
        var isAnswered = false
        var isDisposed = false
        var pending: Disposable?
    }

    private let state = LockedState<State>.make(State())

    var isAnswered: Bool {
        state.withLock { $0.isAnswered }
    }

    func ask(
        _ authenticator: any Authenticator, replacing refused: AuthenticationTicket?,
        _ completion: @escaping @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void
    ) {
        let arrived: @Sendable (Result<AuthenticationTicket, HTTPClientError>) -> Void = { [self] result in
            if case .success(let ticket) = result, !authenticator.isCurrent(ticket) {
                // A refresh began since the ticket was handed out: ask again (this waits for it).
                guard !state.withLock({ $0.isDisposed || $0.isAnswered }) else { return }
                ask(authenticator, replacing: nil, completion)
                return
            }
            let answer = state.withLock { state -> Bool in
                guard !state.isAnswered, !state.isDisposed else { return false }
                state.isAnswered = true
                state.pending = nil
                return true
            }
            if answer { completion(result) }
        }
        let pending = refused.map { authenticator.unauthorized(with: $0, arrived) } ?? authenticator.ticket(arrived)
        let stale = state.withLock { state -> Bool in
            guard !state.isAnswered, !state.isDisposed else { return true }
            state.pending = pending
            return false
        }
        if stale { pending.dispose() }
    }

    func dispose() {
        let pending = state.withLock { state -> Disposable? in
            guard !state.isDisposed else { return nil }
            state.isDisposed = true
            defer { state.pending = nil }
            return state.pending
        }
        pending?.dispose()
    }
}
