import Foundation
import RxCore

/// One send of a request, from plugins to delivery: the state machine behind `HTTPRequestHandle`.
///
/// Phases: `waiting` (built, maybe held) → `sending` (plugins ran, transport running) →
/// `receiving` (the transport answered; plugins and decoding run) → `finished`; `cancelled` from
/// any phase before `finished`. The transport may answer before its `send` has returned: once
/// `receiving`, the exchange it returns is not kept (it holds this call through its completion). The completion runs exactly once:
/// with the result, or with `.cancelled` when cancelled first. Plugins that saw `willSend` see
/// exactly one `didReceive`.
// @unchecked Sendable: mutable state lives in one LockedState; the other properties are immutable.
final class HTTPCall<Output>: HeldCall, @unchecked Sendable {
    private enum Phase {
        case waiting
        case sending
        case receiving
        case finished
        case cancelled
    }

    typealias Decode = (HTTPResponse, ResponseDecodingContext) throws -> Output
    typealias Completion = (Result<Output, HTTPClientError>) -> Void

    private struct State {
        var phase = Phase.waiting
        var transportTask: Disposable?
        var sentRequest: URLRequest?
        var pluginsAwaitReceive = false
        var decode: Decode?
        var completion: Completion?
    }

    let id: UInt64
    private let client: HTTPClient
    private let urlRequest: URLRequest?
    private let info: HTTPRequestInfo
    private let state: LockedState<State>

    init(
        client: HTTPClient,
        id: UInt64,
        urlRequest: URLRequest?,
        info: HTTPRequestInfo,
        decode: @escaping Decode,
        completion: @escaping Completion
    ) {
        self.client = client
        self.id = id
        self.urlRequest = urlRequest
        self.info = info
        self.state = .make(State(decode: decode, completion: completion))
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    var isCancelled: Bool {
        state.withLock { $0.phase == .cancelled }
    }

    /// Runs `prepare` of every plugin, validates the headers, runs `willSend` and starts the
    /// transport.
    func transmit() {
        guard var request = urlRequest, state.withLock({ $0.phase == .waiting }) else { return }
        for plugin in client.plugins {
            request = plugin.prepare(request, info: info)
        }
        do throws(HTTPClientError) {
            try HeaderValidation.validate(request.allHTTPHeaderFields ?? [:], url: request.url)
        } catch {
            fail(error)
            return
        }
        let proceed = state.withLock { state -> Bool in
            guard state.phase == .waiting else { return false }
            state.phase = .sending
            state.sentRequest = request
            state.pluginsAwaitReceive = true
            return true
        }
        guard proceed else { return }
        for plugin in client.plugins {
            plugin.willSend(request, info: info)
        }
        guard state.withLock({ $0.phase == .sending }) else { return }
        let inline = client.transportCallsBackOnCallbackQueue
        let task = client.transport.send(request) { [self] result in
            let mapped = result.mapError(Self.classify)
            if inline {
                process(mapped)
            } else {
                client.callbackQueue.async { self.process(mapped) }
            }
        }
        let stale = state.withLock { state -> Disposable? in
            guard state.phase == .sending, state.transportTask == nil else {
                return state.phase == .cancelled ? task : nil
            }
            state.transportTask = task
            return nil
        }
        stale?.dispose()
    }

    /// Cancels the request: removes it from the hold queue or cancels the transport, then
    /// delivers `.cancelled` on the callback queue. Does nothing once finished.
    func cancel() {
        let action = state.withLock { state -> (wasWaiting: Bool, task: Disposable?, notify: URLRequest?)? in
            switch state.phase {
            case .finished, .cancelled:
                return nil
            case .waiting, .sending, .receiving:
                let wasWaiting = state.phase == .waiting
                state.phase = .cancelled
                let notify = state.pluginsAwaitReceive ? state.sentRequest : nil
                state.pluginsAwaitReceive = false
                defer { state.transportTask = nil }
                return (wasWaiting, state.transportTask, notify)
            }
        }
        guard let action else { return }
        if action.wasWaiting {
            client.removeHeld(id: id)
        }
        action.task?.dispose()
        let cancelled = HTTPClientError(.cancelled, message: "the request was cancelled", url: urlRequest?.url)
        client.callbackQueue.async { [self] in
            if let request = action.notify {
                for plugin in client.plugins {
                    plugin.didReceive(.failure(cancelled), request: request, info: info)
                }
            }
            let completion = state.withLock { state in
                defer { state.completion = nil; state.decode = nil }
                return state.completion
            }
            completion?(.failure(cancelled))
        }
    }

    /// Fails the call before anything was sent (the request could not be built), on the
    /// callback queue: never synchronously inside the call that made the request.
    func fail(_ error: HTTPClientError) {
        client.callbackQueue.async { [self] in
            deliver(.failure(error), ifStill: .waiting)
        }
    }

    /// On the callback queue: plugins, status validation, decoding, delivery.
    private func process(_ transportResult: Result<HTTPResponse, HTTPClientError>) {
        let claim = state.withLock { state -> (request: URLRequest, notify: Bool, decode: Decode)? in
            guard state.phase == .sending, let request = state.sentRequest, let decode = state.decode else { return nil }
            state.phase = .receiving
            defer { state.pluginsAwaitReceive = false; state.transportTask = nil }
            return (request, state.pluginsAwaitReceive, decode)
        }
        guard let claim else { return }
        var result = transportResult.flatMap { response -> Result<HTTPResponse, HTTPClientError> in
            guard client.configuration.acceptableStatusCodes.contains(response.statusCode) else {
                return .failure(HTTPClientError(
                    .unacceptableStatusCode,
                    message: "status \(response.statusCode) is not acceptable",
                    statusCode: response.statusCode, body: response.body, url: response.url ?? claim.request.url,
                    headers: response.headers
                ))
            }
            return .success(response)
        }
        if claim.notify {
            for plugin in client.plugins {
                plugin.didReceive(result, request: claim.request, info: info)
            }
        }
        for plugin in client.plugins {
            result = plugin.process(result, info: info)
        }
        let output: Result<Output, HTTPClientError> = result.flatMap { response in
            let context = ResponseDecodingContext(
                decoder: client.configuration.jsonDecoder, envelope: client.configuration.envelope
            )
            do {
                return .success(try claim.decode(response, context))
            } catch let error as HTTPClientError {
                return .failure(error)
            } catch {
                return .failure(HTTPClientError(
                    .decodeError, message: HTTPClientError.describe(error),
                    statusCode: response.statusCode, body: response.body, url: response.url, underlying: error
                ))
            }
        }
        deliver(output, ifStill: .receiving)
    }

    /// Delivers `result` if the call is still in `phase` (not cancelled or finished meanwhile).
    private func deliver(_ result: Result<Output, HTTPClientError>, ifStill phase: Phase) {
        let completion = state.withLock { state -> Completion? in
            guard state.phase == phase else { return nil }
            state.phase = .finished
            defer { state.completion = nil; state.decode = nil }
            return state.completion
        }
        completion?(result)
    }

    /// Maps a transport error to the client's error type.
    static func classify(_ error: any Error) -> HTTPClientError {
        if let error = error as? HTTPClientError {
            return error
        }
        let nsError = error as NSError
        let url = (nsError.userInfo[NSURLErrorFailingURLErrorKey] as? URL)
        if nsError.domain == NSURLErrorDomain {
            switch nsError.code {
            case NSURLErrorTimedOut:
                return HTTPClientError(.timedOut, message: "the server did not answer in time", url: url, underlying: error)
            case NSURLErrorCancelled:
                return HTTPClientError(.cancelled, message: "the transport cancelled the request", url: url, underlying: error)
            case NSURLErrorBadURL, NSURLErrorUnsupportedURL:
                return HTTPClientError(.invalidRequest, message: "the transport rejected the URL", url: url, underlying: error)
            default:
                break
            }
        }
        return HTTPClientError(.transport, message: "the connection failed", url: url, underlying: error)
    }
}
