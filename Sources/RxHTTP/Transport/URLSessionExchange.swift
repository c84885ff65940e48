import Foundation
@_spi(RxNetworkKitInternals) import RxCore

/// One request/response exchange of `URLSessionTransport`: checks the response's framing and size
/// as it arrives, decides about redirects, holds the time-out in the transport's `DeadlineQueue`,
/// and completes exactly once (or never, once disposed).
///
/// Two deliveries: `.buffered` collects the body (bounded by the options) and completes with the
/// whole response; `.streaming` hands over the head, each chunk as it arrives and the end, and its
/// time-out bounds the wait for the head only.
///
/// URLSession on Linux reads the network whatever its delegate does: each chunk (at most libcurl's
/// 16 KiB) waits as an operation on the delegate queue. When a stream's reader falls behind, that
/// queue is the memory; once more operations wait than `options.maxStreamBacklogBytes` allows in
/// such chunks (512 for the 8 MiB of a download's default buffer), the exchange stops
/// reading (cancels the task) but still hands over every chunk already received, then fails with
/// `.bufferOverflow`: bounded memory, and a download resumes after its last byte instead of
/// fetching again what waited in the queue.
///
/// Disposing (and every other early end) cancels the task on the transport's cancel queue, never
/// on the caller's thread: `URLSessionTask.cancel()` waits for the task's work queue, which may be
/// busy inflating a large body, and disposing must return at once.
// @unchecked Sendable: mutable state lives in one LockedState; the other properties are immutable.
final class URLSessionExchange: Disposable, DeadlineExpiring, @unchecked Sendable {
    typealias Delivery = TransportDelivery

    private struct State {
        var isFinished = false
        /// The response's status, headers (converted from Foundation's once) and URL.
        var head: HTTPResponseHead?
        var framing: ResponseFraming?
        var body = Data()
        var streamedBytes = 0
        var headDelivered = false
        var deadline: DeadlineQueue.Token?
        var redirects = 0
        /// A stream's delegate queue fell too far behind: the task is cancelled, and what it
        /// received is still handed over until it completes.
        var stoppedReading = false
    }

    /// The most libcurl hands URLSession at once (`CURL_MAX_WRITE_SIZE`): one delegate operation.
    static let largestChunk = 16 << 10

    /// Operations the delegate queue may hold behind a stream's chunk before the exchange stops
    /// reading: the stream's backlog allowance in libcurl's chunks.
    static func maxPendingCallbacks(for options: HTTPTransportOptions) -> Int {
        max(1, options.maxStreamBacklogBytes / largestChunk)
    }

    private let task: URLSessionDataTask
    private let deadlines: DeadlineQueue
    private let cancelQueue: DispatchQueue
    private let timeout: TimeInterval
    private let options: HTTPTransportOptions
    private let method: String?
    /// The file the body streams from, for its progress and a fresh stream when it is sent again.
    private let fileBody: HTTPFileBody?
    /// Called when the response's framing is broken, so that its connection is never reused.
    private let retireConnection: @Sendable () -> Void
    /// How many operations wait on the delegate queue (the stream's backlog and any other task's).
    private let pendingCallbacks: @Sendable () -> Int
    /// `maxPendingCallbacks(for: options)`, once: it is compared at every chunk.
    private let maxPendingCallbacks: Int
    private let delivery: Delivery
    private let state = LockedState<State>.make(State())

    init(
        task: URLSessionDataTask, deadlines: DeadlineQueue, cancelQueue: DispatchQueue, timeout: TimeInterval,
        options: HTTPTransportOptions, method: String?, fileBody: HTTPFileBody? = nil,
        retireConnection: @escaping @Sendable () -> Void,
        pendingCallbacks: @escaping @Sendable () -> Int,
        delivery: Delivery
    ) {
        self.pendingCallbacks = pendingCallbacks
        self.maxPendingCallbacks = Self.maxPendingCallbacks(for: options)
        self.fileBody = fileBody
        self.task = task
        self.deadlines = deadlines
        self.cancelQueue = cancelQueue
        self.timeout = timeout
        self.options = options
        self.method = method
        self.retireConnection = retireConnection
        self.delivery = delivery
        Resources.incrementTotal()
    }

    private var isStreaming: Bool {
        delivery.isStreaming
    }

    deinit {
        Resources.decrementTotal()
    }

    private var url: URL? {
        task.originalRequest?.url
    }

    /// Adds the time-out to the deadline queue and resumes the task.
    func start() {
        if timeout.isFinite, timeout > 0 {
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
        let responded = state.withLock { $0.head != nil }
        let error = HTTPClientError(
            .timedOut, message: "no complete response within \(timeout) s", url: url,
            phase: responded ? .responded : .sentWithoutResponse
        )
        finish(.failure(error), cancelTask: true)
    }

    func didReceive(_ response: URLResponse) {
        guard let response = response as? HTTPURLResponse else { return }
        let headers = HTTPResponse.headers(of: response)
        let verdict: Result<ResponseFraming, HTTPClientError>
        do throws(HTTPClientError) {
            verdict = .success(try ResponseFraming.validate(
                headers: headers, statusCode: response.statusCode, method: method, url: response.url ?? url
            ))
        } catch {
            verdict = .failure(error)
        }
        switch verdict {
        case .failure(let error):
            retireConnection()
            finish(.failure(error), cancelTask: true)
        case .success(let framing):
            if !isStreaming, let length = framing.contentLength, !framing.hasNoBody, length > Int64(options.maxResponseBodySize) {
                finish(.failure(tooLarge(response.statusCode, headers: headers, announced: length)), cancelTask: true)
                return
            }
            let head = state.withLock { state -> (deliver: Bool, deadline: DeadlineQueue.Token?) in
                state.head = HTTPResponseHead(statusCode: response.statusCode, headers: headers, url: response.url)
                state.framing = framing
                state.body = Data()
                guard isStreaming, !state.isFinished else { return (false, nil) }
                // A stream's time-out bounds the wait for its head; its reader watches the body.
                state.headDelivered = true
                defer { state.deadline = nil }
                return (true, state.deadline)
            }
            if case .streaming(let receive) = delivery, head.deliver {
                if let deadline = head.deadline { deadlines.remove(deadline) }
                receive(.success(.head(HTTPResponseHead(statusCode: response.statusCode, headers: headers, url: response.url ?? url))))
            }
        }
    }



    /// URLSession sent `totalBytesSent` of the body: a file body's progress.
    func didSendBody(_ totalBytesSent: Int64) {
        guard let fileBody, !state.withLock({ $0.isFinished }) else { return }
        fileBody.didSend(totalBytesSent)
    }

    /// The body from its start, for URLSession sending it again.
    func freshBodyStream() -> InputStream? {
        fileBody.flatMap { InputStream(url: $0.url) }
    }

    func didReceive(_ data: Data) {
        if case .streaming(let receive) = delivery {
            let behind = pendingCallbacks() > maxPendingCallbacks
            let step = state.withLock { state -> (live: Bool, stop: Bool) in
                guard !state.isFinished else { return (false, false) }
                state.streamedBytes += data.count
                guard behind, !state.stoppedReading else { return (true, false) }
                state.stoppedReading = true
                return (true, true)
            }
            if step.stop { cancelQueue.async { [task] in task.cancel() } }
            if step.live { receive(.success(.body(data))) }
            return
        }
        let overflow = state.withLock { state -> (Int, HTTPHeaders)? in
            guard !state.isFinished else { return nil }
            guard state.body.count + data.count <= options.maxResponseBodySize else {
                return (state.head?.statusCode ?? 0, state.head?.headers ?? [:])
            }
            if state.body.isEmpty {
                state.body = data
            } else {
                state.body.append(data)
            }
            return nil
        }
        if let overflow {
            finish(.failure(tooLarge(overflow.0, headers: overflow.1, announced: nil)), cancelTask: true)
        }
    }

    private func tooLarge(_ statusCode: Int, headers: HTTPHeaders, announced: Int64?) -> HTTPClientError {
        let what = announced.map { "announces \($0) bytes" } ?? "passed the limit"
        return HTTPClientError(
            .responseTooLarge,
            message: "the response body \(what); the limit is \(options.maxResponseBodySize) bytes",
            statusCode: statusCode, url: url, headers: headers, phase: .responded
        )
    }

    /// Decides about a redirect and answers URLSession, exactly once, or not at all once this
    /// exchange has ended (answering then would crash Foundation: its task no longer waits).
    func willRedirect(
        response: HTTPURLResponse, proposed: URLRequest, answer: @escaping (URLRequest?) -> Void
    ) {
        let current = response.url ?? url ?? proposed.url ?? URL(fileURLWithPath: "/")
        // URLSession proposes its own request: a redirect converts it both ways (rare, and only here).
        let converted = Result { () throws(HTTPClientError) in try HTTPTransportRequest(proposed) }
        let refusal = state.withLock { state -> HTTPClientError? in
            guard !state.isFinished else { return nil }
            let decision: RedirectPolicy.Decision
            switch converted {
            case .success(let proposed):
                decision = options.redirectPolicy.decide(
                    location: response.value(forHTTPHeaderField: "Location"), current: current, proposed: proposed,
                    hopsSoFar: state.redirects, credentialHeaderNames: options.credentialHeaderNames
                )
            case .failure(let error):
                decision = .refuse(error)
            }
            // Answered under the lock on purpose: a cancel (which takes this lock first) then
            // always reaches the task after the answer, never between Foundation's wait and it.
            // The answer only enqueues work on the task's queue; it calls nothing of ours.
            switch decision {
            case .follow(let next):
                state.redirects += 1
                answer(next.urlRequest)
                return nil
            case .deliverResponse:
                answer(nil)
                return nil
            case .refuse(let error):
                answer(nil)
                return error
            }
        }
        if let refusal {
            finish(.failure(refusal), cancelTask: true)
        }
    }

    func didComplete(error: Error?) {
        // The body (empty for a stream, whose chunks went out) and how many bytes arrived.
        let received = state.withLock { state -> (HTTPResponseHead?, Data, ResponseFraming?, bodyCount: Int, stoppedReading: Bool)? in
            // Disposed (or timed out) first: the end is only URLSession's acknowledgement. The body
            // was released at the finish, so checking the framing now would call a healthy
            // connection truncated and retire its session.
            guard !state.isFinished else { return nil }
            let bodyCount = isStreaming ? state.streamedBytes : state.body.count
            return (state.head, isStreaming ? Data() : state.body, state.framing, bodyCount, state.stoppedReading)
        }
        guard let received else { return }
        if let error, received.stoppedReading {
            finish(.failure(HTTPClientError(
                .bufferOverflow,
                message: "the reader fell more than \(maxPendingCallbacks) chunks behind URLSession, which cannot pause a transfer; it stopped after \(received.bodyCount) bytes",
                url: url, underlying: error, phase: .responded
            )), cancelTask: false)
            return
        }
        if let error {
            let head = received.0.map { HTTPResponse($0) }
            finish(.failure(URLErrorClassification.classify(error, url: url, response: head)), cancelTask: false)
            return
        }
        // A 3xx that URLSession did not follow (no Location) never reaches `didReceive`: it is
        // still the task's response.
        let response: HTTPResponse
        if let head = received.0 {
            response = HTTPResponse(head, body: received.1)
        } else if let unfollowed = task.response as? HTTPURLResponse {
            response = HTTPResponse(unfollowed, body: received.1)
        } else {
            finish(.failure(HTTPClientError(.invalidResponse, message: "the response is not an HTTP response", url: url)), cancelTask: false)
            return
        }
        do throws(HTTPClientError) {
            var framing = received.2
            if framing == nil {
                framing = try ResponseFraming.validate(
                    headers: response.headers, statusCode: response.statusCode, method: method, url: response.url ?? url
                )
            }
            // Foundation keeps the body of a 3xx it did not follow to itself: nothing to count.
            let bodyWasDelivered = received.0 != nil
            try framing.flatMap { bodyWasDelivered ? $0 : nil }?.validate(bodyCount: received.bodyCount, statusCode: response.statusCode, headers: response.headers, url: response.url ?? url)
        } catch {
            retireConnection()
            finish(.failure(error), cancelTask: false)
            return
        }
        finish(.success(response), cancelTask: false)
    }

    /// Completes with the authentication-challenge response (401/407) and what arrived of its body.
    func completeWithChallengeResponse(_ failureResponse: URLResponse?) {
        let received = state.withLock { ($0.head, $0.body) }
        if let head = received.0 {
            finish(.success(HTTPResponse(head, body: received.1)), cancelTask: false)
        } else if let response = failureResponse as? HTTPURLResponse {
            finish(.success(HTTPResponse(response, body: received.1)), cancelTask: false)
        } else {
            finish(.failure(HTTPClientError(.invalidResponse, message: "authentication challenge without a response", url: url)), cancelTask: true)
        }
    }

    /// Cancels the exchange; the completion is not called. Returns at once.
    func dispose() {
        finish(nil, cancelTask: true)
    }

    private func finish(_ result: Result<HTTPResponse, any Error>?, cancelTask: Bool) {
        let claim = state.withLock { state -> (won: Bool, deadline: DeadlineQueue.Token?, headDelivered: Bool) in
            guard !state.isFinished else { return (false, nil, false) }
            state.isFinished = true
            // The body is no longer needed here: a cut-off large body is released now.
            state.body = Data()
            defer { state.deadline = nil }
            return (true, state.deadline, state.headDelivered)
        }
        guard claim.won else { return }
        if let deadline = claim.deadline {
            deadlines.remove(deadline)
        }
        if cancelTask {
            cancelQueue.async { [task] in task.cancel() }
        }
        guard let result else { return }
        delivery.deliverEnd(result, headDelivered: claim.headDelivered)
    }
}
