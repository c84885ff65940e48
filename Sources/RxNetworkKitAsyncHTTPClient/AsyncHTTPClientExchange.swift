// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RxCore
@_spi(TransportSupport) import RxHTTP

/// One request of `AsyncHTTPClientTransport`, redirects included: the AsyncHTTPClient delegate of
/// each hop, which checks framing and size as the response arrives, follows redirects by the
/// client's policy, holds the time-out, and completes exactly once (or never, once disposed).
///
/// Two deliveries, as for URLSession: `.buffered` collects the body (bounded) and completes with the
/// whole response; `.streaming` hands over the head, each part and the end, and its time-out bounds
/// the wait for the head only.
///
/// Hops run one after another: a followed redirect's body is read to its end (bounded) so that its
/// connection can be reused, then the next hop starts with the same deadline.
final class AsyncHTTPClientExchange: HTTPClientResponseDelegate, Disposable {
    typealias Response = Void

    typealias Delivery = TransportDelivery

    /// The response head of the current hop.
    private struct Head: Sendable {
        let statusCode: Int
        let headers: RxHTTP.HTTPHeaders
        let url: URL?
        let framing: ResponseFraming
    }

    private struct State: Sendable {
        var isFinished = false
        /// The request of the current hop.
        var request: HTTPTransportRequest
        var hops = 0
        var requestHeadSent = false
        /// Response heads AsyncHTTPClient reported in this hop (more than one: it redirected itself).
        var headsVisited = 0
        var head: Head?
        /// Whether a stream's head went out (a response that ends without one still gets one).
        var headDelivered = false
        var body = ByteBuffer()
        var bodyCount = 0
        /// The next hop's request, once this hop's redirect was accepted.
        var redirect: HTTPTransportRequest?
        var task: AsyncHTTPClient.HTTPClient.Task<Void>?
        var headTimer: Scheduled<Void>?
        /// The current hop's file body, to end when the server answers before it was all sent.
        var upload: FileBodyStream.Ending?
    }

    private let client: AsyncHTTPClient.HTTPClient
    private let options: HTTPTransportOptions
    private let offersCompression: Bool
    private let delivery: Delivery
    private let timeout: TimeInterval
    /// The end of the whole exchange (buffered), for every hop.
    private let deadline: NIODeadline
    private let originalURL: URL?
    private let state: NIOLockedValueBox<State>

    init(
        client: AsyncHTTPClient.HTTPClient, request: HTTPTransportRequest, options: HTTPTransportOptions,
        offersCompression: Bool, delivery: Delivery
    ) {
        self.client = client
        self.options = options
        self.offersCompression = offersCompression
        self.delivery = delivery
        let timeout = TimeoutBounds.clamped(request.timeoutInterval) ?? TimeoutBounds.defaultTimeout
        self.timeout = timeout
        self.deadline = .now() + .nanoseconds(Int64(timeout * 1_000_000_000))
        self.originalURL = request.url
        self.state = NIOLockedValueBox(State(request: request))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    private var isStreaming: Bool {
        delivery.isStreaming
    }

    // MARK: Hops

    /// Sends the first hop: `request`, the one the exchange was made with.
    func start(_ request: HTTPTransportRequest) {
        send(request)
    }

    private func send(_ request: HTTPTransportRequest) {
        let converted: AsyncHTTPClient.HTTPClient.Request
        do {
            converted = try RequestConversion.request(
                from: request, offeringCompression: offersCompression, headersAreChecked: options.headersAreChecked,
                eventLoopGroup: client.eventLoopGroup,
                onUploadStart: { [weak self] ending in self?.state.withLockedValue { $0.upload = ending } }
            )
        } catch {
            finish(.failure(error), cancelling: nil)
            return
        }
        // A stream's body may take for ever: no NIO deadline; its own timer bounds the head.
        let task = client.execute(
            request: converted, delegate: self, eventLoop: .indifferent, deadline: isStreaming ? nil : deadline
        )
        var headTimer: Scheduled<Void>?
        if isStreaming {
            headTimer = task.eventLoop.scheduleTask(deadline: deadline) { [weak self] in self?.headTimedOut() }
        }
        let (stored, replacedTimer) = state.withLockedValue { state -> (Bool, Scheduled<Void>?) in
            guard !state.isFinished else { return (false, nil) }
            // A redirect hop's timer replaces the previous hop's (same deadline).
            defer { state.task = task; state.headTimer = headTimer }
            return (true, state.headTimer)
        }
        replacedTimer?.cancel()
        if !stored {
            headTimer?.cancel()
            task.cancel()
        }
    }

    private func headTimedOut() {
        let sent = state.withLockedValue { $0.head == nil ? $0.requestHeadSent : nil }
        guard let sent else { return }
        let error = RxHTTP.HTTPClientError(
            .timedOut, message: "no response head within \(timeout) s", url: originalURL,
            phase: sent ? .sentWithoutResponse : .notSent
        )
        finish(.failure(error), cancelling: currentTask)
    }

    private var currentTask: AsyncHTTPClient.HTTPClient.Task<Void>? {
        state.withLockedValue { $0.task }
    }

    // MARK: HTTPClientResponseDelegate

    func didSendRequestHead(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ head: HTTPRequestHead) {
        state.withLockedValue { $0.requestHeadSent = true }
    }

    func didVisitURL(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ request: AsyncHTTPClient.HTTPClient.Request, _ head: NIOHTTP1.HTTPResponseHead) {
        // Called for every head; a second one in a hop means the AsyncHTTPClient followed a redirect
        // itself (a borrowed client that allows redirects), bypassing the client's policy.
        let bypassed = state.withLockedValue { state -> Bool in
            state.headsVisited += 1
            return state.headsVisited > 1
        }
        if bypassed {
            let error = RxHTTP.HTTPClientError(
                .redirectRefused,
                message: "the AsyncHTTPClient followed a redirect itself; configure it with redirectConfiguration: .disallow",
                url: originalURL, phase: .sentWithoutResponse
            )
            finish(.failure(error), cancelling: task)
        }
    }

    func didReceiveHead(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ head: NIOHTTP1.HTTPResponseHead) -> EventLoopFuture<Void> {
        let statusCode = Int(head.status.code)
        if statusCode >= 300 {
            // AsyncHTTPClient sends no more of a body once a status of 300 or more arrived, and
            // waits for the body to end before it finishes: end it, or the request never does.
            state.withLockedValue { $0.upload }?.complete(.success(()))
        }
        let headers = RequestConversion.headers(head.headers)
        // The hop's URL and method, without copying its whole request (a redirect reads it all).
        let (url, method) = state.withLockedValue { ($0.request.url, $0.request.method) }
        if (300..<400).contains(statusCode) {
            let (request, hops) = state.withLockedValue { ($0.request, $0.hops) }
            let decision = options.redirectPolicy.followUp(
                to: request, statusCode: statusCode, location: head.headers.first(name: "Location"),
                current: url, hopsSoFar: hops, credentialHeaderNames: options.credentialHeaderNames
            )
            switch decision {
            case .follow(let next):
                state.withLockedValue { $0.redirect = next }
                return task.eventLoop.makeSucceededVoidFuture()
            case .refuse(let error):
                finish(.failure(error), cancelling: task)
                return task.eventLoop.makeSucceededVoidFuture()
            case .deliverResponse:
                break
            }
        }
        let framing: ResponseFraming
        do throws(RxHTTP.HTTPClientError) {
            framing = try ResponseFraming.validate(headers: headers, statusCode: statusCode, method: method.rawValue, url: url)
        } catch {
            finish(.failure(error), cancelling: task)
            return task.eventLoop.makeSucceededVoidFuture()
        }
        if !isStreaming, let length = framing.contentLength, !framing.hasNoBody, length > Int64(options.maxResponseBodySize) {
            finish(.failure(tooLarge(statusCode, headers: headers, announced: length)), cancelling: task)
            return task.eventLoop.makeSucceededVoidFuture()
        }
        let delivers = state.withLockedValue { state -> (Bool, Scheduled<Void>?) in
            state.head = Head(statusCode: statusCode, headers: headers, url: url, framing: framing)
            if !isStreaming, let length = framing.contentLength, !framing.isContentEncoded, length > 0 {
                state.body.reserveCapacity(Int(length))
            }
            guard isStreaming, !state.isFinished else { return (false, nil) }
            state.headDelivered = true
            defer { state.headTimer = nil }
            return (true, state.headTimer)
        }
        if delivers.0, case .streaming(let receive) = delivery {
            delivers.1?.cancel()
            receive(.success(.head(RxHTTP.HTTPResponseHead(statusCode: statusCode, headers: headers, url: url))))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        enum Step { case none, deliver, overflow(Int, RxHTTP.HTTPHeaders) }
        let step = state.withLockedValue { state -> Step in
            guard !state.isFinished else { return .none }
            state.bodyCount += buffer.readableBytes
            if state.redirect != nil || isStreaming {
                // A redirect's own body is read only to free its connection, within the limit.
                return state.redirect != nil && state.bodyCount > options.maxResponseBodySize
                    ? .overflow(state.head?.statusCode ?? 0, state.head?.headers ?? [:]) : (isStreaming ? .deliver : .none)
            }
            guard state.bodyCount <= options.maxResponseBodySize else {
                return .overflow(state.head?.statusCode ?? 0, state.head?.headers ?? [:])
            }
            var part = buffer
            state.body.writeBuffer(&part)
            return .none
        }
        switch step {
        case .none:
            break
        case .deliver:
            if case .streaming(let receive) = delivery {
                receive(.success(.body(Data(buffer.readableBytesView))))
                if let demand = options.streamDemand {
                    // AsyncHTTPClient reads no further until this completes: a reader that fell
                    // behind slows the network instead of filling its buffer.
                    let ready = task.eventLoop.makePromise(of: Void.self)
                    demand.whenReady { ready.succeed(()) }
                    return ready.futureResult
                }
            }
        case .overflow(let statusCode, let headers):
            finish(.failure(tooLarge(statusCode, headers: headers, announced: nil)), cancelling: task)
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: AsyncHTTPClient.HTTPClient.Task<Void>) throws {
        enum Step { case none, redirect(HTTPTransportRequest), complete(Head, ByteBuffer, Int), noHead }
        let step = state.withLockedValue { state -> Step in
            guard !state.isFinished else { return .none }
            if let next = state.redirect {
                state.hops += 1
                state.request = next
                state.redirect = nil
                state.head = nil
                state.headsVisited = 0
                state.requestHeadSent = false
                state.bodyCount = 0
                state.task = nil
                return .redirect(next)
            }
            guard let head = state.head else { return .noHead }
            return .complete(head, state.body, state.bodyCount)
        }
        switch step {
        case .none:
            return
        case .noHead:
            // Not seen from AsyncHTTPClient; never leave the caller waiting if it happens.
            let error = RxHTTP.HTTPClientError(.invalidResponse, message: "the exchange ended without a response head", url: originalURL)
            finish(.failure(error), cancelling: nil)
        case .redirect(let next):
            send(next)
        case .complete(let head, let body, let count):
            do throws(RxHTTP.HTTPClientError) {
                try head.framing.validate(bodyCount: count, statusCode: head.statusCode, headers: head.headers, url: head.url)
            } catch {
                finish(.failure(error), cancelling: nil)
                return
            }
            if isStreaming {
                finish(.success(HTTPResponse(statusCode: head.statusCode, headers: head.headers, url: head.url)), cancelling: nil)
            } else {
                let data = Data(body.readableBytesView)
                finish(.success(HTTPResponse(statusCode: head.statusCode, headers: head.headers, body: data, url: head.url)), cancelling: nil)
            }
        }
    }

    func didReceiveError(task: AsyncHTTPClient.HTTPClient.Task<Void>, _ error: Error) {
        let progress = state.withLockedValue { state in
            (sent: state.requestHeadSent, head: state.head)
        }
        let classified = AsyncHTTPClientErrors.classify(
            error, url: originalURL, requestHeadSent: progress.sent,
            response: progress.head.map { ($0.statusCode, $0.headers) }
        )
        finish(.failure(classified), cancelling: nil)
    }

    // MARK: Ending

    /// Cancels the exchange; the completion is not called. Returns at once.
    func dispose() {
        finish(nil, cancelling: currentTask)
    }

    private func tooLarge(_ statusCode: Int, headers: RxHTTP.HTTPHeaders, announced: Int64?) -> RxHTTP.HTTPClientError {
        let what = announced.map { "announces \($0) bytes" } ?? "passed the limit"
        return RxHTTP.HTTPClientError(
            .responseTooLarge,
            message: "the response body \(what); the limit is \(options.maxResponseBodySize) bytes",
            statusCode: statusCode, url: originalURL, headers: headers, phase: .responded
        )
    }

    /// Ends the exchange once: cancels the timer and `task` (if given), then delivers `result`
    /// (nothing when disposed).
    private func finish(_ result: Result<HTTPResponse, any Error>?, cancelling task: AsyncHTTPClient.HTTPClient.Task<Void>?) {
        let claim = state.withLockedValue { state -> (won: Bool, timer: Scheduled<Void>?, headDelivered: Bool) in
            guard !state.isFinished else { return (false, nil, false) }
            state.isFinished = true
            // Nothing is needed any more: a cut-off large body is released now.
            state.body = ByteBuffer()
            defer { state.headTimer = nil; state.task = nil }
            return (true, state.headTimer, state.headDelivered)
        }
        guard claim.won else { return }
        claim.timer?.cancel()
        task?.cancel()
        guard let result else { return }
        delivery.deliverEnd(result, headDelivered: claim.headDelivered)
    }
}
#endif
