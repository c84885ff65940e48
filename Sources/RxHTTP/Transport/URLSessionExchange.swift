import Foundation
import RxCore

/// One request/response exchange of `URLSessionTransport`: collects the response and body,
/// holds the overall time-out in the transport's `DeadlineQueue`, and completes exactly once (or
/// never, once disposed).
// @unchecked Sendable: mutable state lives in one LockedState; the other properties are immutable.
final class URLSessionExchange: Disposable, DeadlineExpiring, @unchecked Sendable {
    private struct State {
        var isFinished = false
        var response: HTTPURLResponse?
        var body = Data()
        var deadline: DeadlineQueue.Token?
    }

    private let task: URLSessionDataTask
    private let deadlines: DeadlineQueue
    private let timeout: TimeInterval
    private let completion: @Sendable (Result<HTTPResponse, any Error>) -> Void
    private let state = LockedState<State>.make(State())

    init(
        task: URLSessionDataTask, deadlines: DeadlineQueue, timeout: TimeInterval,
        completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void
    ) {
        self.task = task
        self.deadlines = deadlines
        self.timeout = timeout
        self.completion = completion
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    /// Adds the time-out to the deadline queue and resumes the task.
    func start() {
        if timeout > 0, timeout.isFinite {
            let token = deadlines.add(after: timeout, target: self)
            let armed = state.withLock { state -> Bool in
                guard !state.isFinished else { return false }
                state.deadline = token
                return true
            }
            if !armed {
                deadlines.remove(token)
            }
        }
        task.resume()
    }

    /// The whole-request time-out passed: cancels the task and fails with `.timedOut`.
    func deadlinePassed() {
        finish(
            .failure(HTTPClientError(.timedOut, message: "no complete response within \(timeout) s", url: task.originalRequest?.url)),
            cancelTask: true
        )
    }

    func didReceive(_ response: URLResponse) {
        state.withLock { state in
            state.response = response as? HTTPURLResponse
            state.body = Data()
        }
    }

    func didReceive(_ data: Data) {
        state.withLock { state in
            if state.body.isEmpty {
                state.body = data
            } else {
                state.body.append(data)
            }
        }
    }

    func didComplete(error: Error?) {
        if let error {
            finish(.failure(error), cancelTask: false)
            return
        }
        let received = state.withLock { ($0.response, $0.body) }
        guard let response = received.0 else {
            finish(.failure(HTTPClientError(.transport, message: "the response is not an HTTP response")), cancelTask: false)
            return
        }
        finish(.success(HTTPResponse(response, body: received.1)), cancelTask: false)
    }

    /// Completes with the authentication-challenge response (401/407) and what arrived of its body.
    func completeWithChallengeResponse(_ failureResponse: URLResponse?) {
        let received = state.withLock { ($0.response, $0.body) }
        guard let response = received.0 ?? (failureResponse as? HTTPURLResponse) else {
            finish(.failure(HTTPClientError(.transport, message: "authentication challenge without a response")), cancelTask: true)
            return
        }
        finish(.success(HTTPResponse(response, body: received.1)), cancelTask: false)
    }

    /// Cancels the exchange; the completion is not called.
    func dispose() {
        finish(nil, cancelTask: true)
    }

    private func finish(_ result: Result<HTTPResponse, any Error>?, cancelTask: Bool) {
        let claim = state.withLock { state -> (won: Bool, deadline: DeadlineQueue.Token?) in
            guard !state.isFinished else { return (false, nil) }
            state.isFinished = true
            defer { state.deadline = nil }
            return (true, state.deadline)
        }
        guard claim.won else { return }
        if let deadline = claim.deadline {
            deadlines.remove(deadline)
        }
        if cancelTask {
            task.cancel()
        }
        if let result {
            completion(result)
        }
    }
}
