import Foundation
import RxCore

/// One request/response exchange of `URLSessionTransport`: collects the response and body,
/// runs the overall time-out timer, and completes exactly once (or never, once disposed).
// @unchecked Sendable: mutable state lives in one LockedState; `task` and `completion` are immutable.
final class URLSessionExchange: Disposable, @unchecked Sendable {
    private struct State {
        var isFinished = false
        var response: HTTPURLResponse?
        var body = Data()
        var timer: DispatchSourceTimer?
    }

    private let task: URLSessionDataTask
    private let completion: @Sendable (Result<HTTPResponse, any Error>) -> Void
    private let state = LockedState<State>.make(State())

    init(task: URLSessionDataTask, completion: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) {
        self.task = task
        self.completion = completion
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    /// Arms the time-out timer and resumes the task.
    func start(timeout: TimeInterval, timerQueue: DispatchQueue) {
        if timeout > 0, timeout.isFinite {
            let timer = DispatchSource.makeTimerSource(queue: timerQueue)
            timer.schedule(deadline: .now() + timeout)
            timer.setEventHandler { [weak self] in
                self?.finish(
                    .failure(HTTPClientError(.timedOut, message: "no complete response within \(timeout) s", url: self?.task.originalRequest?.url)),
                    cancelTask: true
                )
            }
            // Resumed at once (an inactive source must not be released); cancelled if already finished.
            timer.resume()
            let armed = state.withLock { state -> Bool in
                guard !state.isFinished else { return false }
                state.timer = timer
                return true
            }
            if !armed {
                timer.cancel()
            }
        }
        task.resume()
    }

    func didReceive(_ response: URLResponse) {
        state.withLock { state in
            state.response = response as? HTTPURLResponse
            state.body = Data()
        }
    }

    func didReceive(_ data: Data) {
        state.withLock { $0.body.append(data) }
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
        let claim = state.withLock { state -> (won: Bool, timer: DispatchSourceTimer?) in
            guard !state.isFinished else { return (false, nil) }
            state.isFinished = true
            defer { state.timer = nil }
            return (true, state.timer)
        }
        guard claim.won else { return }
        claim.timer?.cancel()
        if cancelTask {
            task.cancel()
        }
        if let result {
            completion(result)
        }
    }
}
