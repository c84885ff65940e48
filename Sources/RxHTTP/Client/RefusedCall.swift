import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// A call that failed before it could be built (an invalid URL, header, parameter or time-out):
/// nothing is sent, and its error is delivered once on the callback queue — or `.cancelled`, if
/// the handle is cancelled first.
// @unchecked Sendable: the completion lives in one LockedState; `error` and `client` are immutable.
final class RefusedCall<Output>: CancellableCall, @unchecked Sendable {
    private struct State {
        var completion: ((Result<Output, HTTPClientError>) -> Void)?
        var wasCancelled = false
    }

    private let state: LockedState<State>
    private let client: HTTPClient
    private let error: HTTPClientError

    init(error: HTTPClientError, client: HTTPClient, completion: @escaping (Result<Output, HTTPClientError>) -> Void) {
        self.state = .make(State(completion: completion))
        self.client = client
        self.error = error
        client.runOnCallbackContext { [self] in deliver() }
    }

    var isCancelled: Bool {
        state.withLock { $0.wasCancelled }
    }

    func cancel() {
        let pending = state.withLock { state -> Bool in
            guard state.completion != nil else { return false }
            state.wasCancelled = true
            return true
        }
        if pending {
            client.runOnCallbackContext { [self] in deliver() }
        }
    }

    /// Calls the completion once: with `.cancelled` if cancelled first, else with the error.
    private func deliver() {
        let taken = state.withLock { state -> (((Result<Output, HTTPClientError>) -> Void)?, Bool) in
            defer { state.completion = nil }
            return (state.completion, state.wasCancelled)
        }
        guard let completion = taken.0 else { return }
        completion(.failure(taken.1 ? HTTPClientError(.cancelled, message: "the request was cancelled", phase: .notSent) : error))
    }
}
