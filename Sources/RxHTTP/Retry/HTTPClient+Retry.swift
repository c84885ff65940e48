import Foundation
import RxCore

extension HTTPClient {
    /// Starts a request under `policy`: one plain attempt when the policy allows no retry and sets
    /// no deadline, otherwise attempts driven by RxCore's retry, with this client's reachability
    /// as the signal that ends a wait early.
    func start<Output>(
        _ parts: RequestParts,
        policy: RetryPolicy,
        decode: @escaping (HTTPResponse, ResponseDecodingContext) throws -> Output,
        completion: @escaping (Result<Output, HTTPClientError>) -> Void
    ) -> HTTPRequestHandle {
        guard policy.maxAttempts > 1 || policy.deadline != nil else {
            return start(parts, decode: decode, completion: completion)
        }
        let attempt = Observable<Output>.create { [self] observer in
            let handle = start(parts, decode: decode) { result in
                switch result {
                case .success(let output):
                    observer.onNext(output)
                    observer.onCompleted()
                case .failure(let error):
                    observer.onError(error)
                }
            }
            return Disposables.create { handle.cancel() }
        }
        let method = parts.method
        var attempts = attempt.retry(
            policy.maxAttempts,
            delayFor: { retryNumber, error in
                guard let httpError = error as? HTTPClientError else { return policy.delay.make(retryNumber) }
                return policy.delay(beforeRetry: retryNumber, after: httpError)
            },
            scheduler: policy.scheduler,
            didBecomeReachable: policy.retriesWhenReachable ? (reachability?.didBecomeReachable ?? .never()) : .never(),
            shouldRetry: { error in
                guard let httpError = error as? HTTPClientError else { return false }
                return policy.shouldRetry(httpError, method: method)
            }
        )
        if let deadline = policy.deadline {
            attempts = attempts.timeout(.seconds(deadline), scheduler: policy.scheduler)
        }
        let call = RetryingCall(completion: completion, queue: callbackQueue, deadline: policy.deadline)
        call.start(attempts)
        return HTTPRequestHandle(call: call)
    }
}

/// The handle side of a request with retries: delivers exactly once, on the callback queue, and
/// `.cancelled` if cancelled first.
///
/// Successes arrive on the callback queue already (each attempt completes there); errors may
/// arrive on the policy's scheduler (the deadline) and hop to the queue before delivery.
// @unchecked Sendable: the phase, completion and subscription live in one LockedState.
final class RetryingCall<Output>: CancellableCall, @unchecked Sendable {
    private enum Phase {
        case active
        case cancelling
        case finished
    }

    private struct State {
        var phase = Phase.active
        var completion: ((Result<Output, HTTPClientError>) -> Void)?
        var subscription: Disposable?
        var wasCancelled = false
    }

    private let state: LockedState<State>
    private let queue: DispatchQueue
    private let deadline: TimeInterval?

    init(completion: @escaping (Result<Output, HTTPClientError>) -> Void, queue: DispatchQueue, deadline: TimeInterval?) {
        state = .make(State(completion: completion))
        self.queue = queue
        self.deadline = deadline
    }

    func start(_ attempts: Observable<Output>) {
        let subscription = attempts.subscribe(
            onNext: { [self] output in finish(.success(output)) },
            onError: { [self] error in
                let failure = map(error)
                queue.async { [self] in finish(.failure(failure)) }
            }
        )
        let disposeNow = state.withLock { state -> Bool in
            guard case .active = state.phase else { return true }
            state.subscription = subscription
            return false
        }
        if disposeNow {
            subscription.dispose()
        }
    }

    /// Whether the request was cancelled before it finished.
    var isCancelled: Bool {
        state.withLock { $0.wasCancelled }
    }

    func cancel() {
        let subscription = state.withLock { state -> Disposable? in
            guard case .active = state.phase else { return nil }
            state.phase = .cancelling
            state.wasCancelled = true
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.dispose()
        queue.async { [self] in
            let completion = state.withLock { state -> ((Result<Output, HTTPClientError>) -> Void)? in
                guard case .cancelling = state.phase else { return nil }
                state.phase = .finished
                defer { state.completion = nil }
                return state.completion
            }
            completion?(.failure(HTTPClientError(.cancelled, message: "the request was cancelled")))
        }
    }

    private func finish(_ result: Result<Output, HTTPClientError>) {
        let (completion, subscription) = state.withLock { state in
            guard case .active = state.phase else {
                return (((Result<Output, HTTPClientError>) -> Void)?.none, Disposable?.none)
            }
            state.phase = .finished
            defer {
                state.completion = nil
                state.subscription = nil
            }
            return (state.completion, state.subscription)
        }
        subscription?.dispose()
        completion?(result)
    }

    private func map(_ error: Error) -> HTTPClientError {
        if let httpError = error as? HTTPClientError {
            return httpError
        }
        if let rxError = error as? RxError, rxError == .timeout {
            let seconds = deadline.map { "\($0)" } ?? "?"
            return HTTPClientError(.timedOut, message: "the retry deadline of \(seconds) s passed", underlying: error)
        }
        return HTTPClientError(.transport, message: "the request failed", underlying: error)
    }
}
