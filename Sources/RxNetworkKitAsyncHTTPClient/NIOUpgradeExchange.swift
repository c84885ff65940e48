// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RxCore
@_spi(TransportSupport) import RxHTTP

/// One protocol-switch request of `AsyncHTTPClientTransport` (a WebSocket opening handshake), on
/// SwiftNIO directly since AsyncHTTPClient cannot hand over a connection: connects (TLS for https),
/// writes the request as given, and completes once with the 101 and the connection, or with
/// another answer, or with an error whose phase says how far it got.
///
/// `request.timeoutInterval` bounds connecting and the wait for the head: past it the exchange
/// fails with `.timedOut` and closes the channel. Disposing it before it completes closes the
/// channel and the completion is never called; after `.switched` disposing does nothing.
///
/// - Note: Thread-safe. The completion runs on the channel's event loop.
final class NIOUpgradeExchange: Disposable, Sendable {
    typealias Completion = @Sendable (Result<HTTPUpgradeResult, any Error>) -> Void

    private enum State {
        case idle
        /// Resolving and connecting: every channel tried so far, closed if the exchange ends first.
        case connecting(timer: Scheduled<Void>?, channels: [any Channel])
        /// Connected (the TLS handshake may still run); the request is going out, or was written
        /// and the answer is awaited.
        case connected(timer: Scheduled<Void>?, channel: any Channel, requestWritten: Bool)
        /// Over; `handedOver` lists the channels that now belong to the caller (the 101's), which a
        /// connect callback arriving late must not close.
        case finished(handedOver: [ObjectIdentifier])
    }

    private let request: HTTPTransportRequest
    private let options: HTTPTransportOptions
    private let eventLoop: any EventLoop
    private let tlsContext: @Sendable () throws -> NIOSSLContext
    private let completion: Completion
    private let timeout: TimeInterval
    private let state = NIOLockedValueBox(State.idle)

    /// - Parameters:
    ///   - request: The upgrade request, sent as given.
    ///   - options: Bounds the body of a non-101 answer.
    ///   - eventLoopGroup: Where the connection runs.
    ///   - tlsContext: The TLS context for https (called only for https).
    ///   - completion: Called at most once.
    init(
        request: HTTPTransportRequest, options: HTTPTransportOptions, eventLoopGroup: any EventLoopGroup,
        tlsContext: @escaping @Sendable () throws -> NIOSSLContext, completion: @escaping Completion
    ) {
        self.request = request
        self.options = options
        self.eventLoop = eventLoopGroup.next()
        self.tlsContext = tlsContext
        self.completion = completion
        self.timeout = TimeoutBounds.clamped(request.timeoutInterval) ?? TimeoutBounds.defaultTimeout
        Resources.incrementTotal()
    }

    deinit {
        Resources.decrementTotal()
    }

    private var url: URL? {
        request.url
    }

    /// Connects and sends; everything after runs on the event loop.
    func start() {
        let target: UpgradeTarget
        let head: HTTPRequestHead
        var tls: NIOSSLContext?
        do {
            (target, head) = try RequestConversion.upgradeRequest(from: request)
            if target.usesTLS {
                tls = try tlsContext()
            }
        } catch {
            let error = error as? RxHTTP.HTTPClientError ?? RxHTTP.HTTPClientError(
                .transport, message: "the TLS configuration is unusable", url: url, underlying: error, phase: .notSent
            )
            // Never from inside the caller's call.
            eventLoop.execute { self.finish(.failure(error)) }
            return
        }
        guard let bootstrap = ClientBootstrap(validatingGroup: eventLoop) else {
            // A Network.framework group (NIOTransportServices): NIOPosix cannot run on it.
            let error = RxHTTP.HTTPClientError(
                .unsupported, message: "protocol switches need a NIOPosix event loop group", url: url, phase: .notSent
            )
            eventLoop.execute { self.finish(.failure(error)) }
            return
        }
        let timer = eventLoop.scheduleTask(in: .nanoseconds(Int64(timeout * 1_000_000_000))) { [weak self] () -> Void in
            self?.timedOut()
        }
        let started = state.withLockedValue { state -> Bool in
            guard case .idle = state else { return false }
            state = .connecting(timer: timer, channels: [])
            return true
        }
        guard started else {
            timer.cancel()
            return
        }
        let configured = bootstrap
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            // A margin past the exchange's own timer, which reports the time-out.
            .connectTimeout(.nanoseconds(Int64((timeout + 1) * 1_000_000_000)))
            .channelInitializer { [self, tls] channel in
                initialize(channel, target: target, head: head, tls: tls)
            }
        let connected = target.address.map { configured.connect(to: $0) } ?? configured.connect(host: target.host, port: target.port)
        connected.whenComplete { result in self.connected(result) }
    }

    /// Cancels the exchange before it completes: closes the channel; the completion is not called.
    func dispose() {
        finish(nil)
    }

    // MARK: Steps

    /// The pipeline of one connection attempt: [TLS] · deferral · request encoder · response
    /// decoder · `NIOUpgradeResponseHandler`.
    private func initialize(_ channel: any Channel, target: UpgradeTarget, head: HTTPRequestHead, tls: NIOSSLContext?) -> EventLoopFuture<Void> {
        let attached = state.withLockedValue { state -> Bool in
            guard case .connecting(let timer, var channels) = state else { return false }
            channels.append(channel)
            state = .connecting(timer: timer, channels: channels)
            return true
        }
        guard attached else {
            return channel.eventLoop.makeFailedFuture(ChannelError.ioOnClosedChannel)
        }
        return channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            if let tls {
                try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: target.serverName))
            }
            let encoder = HTTPRequestEncoder()
            let decoder = ByteToMessageHandler(HTTPResponseDecoder(leftOverBytesStrategy: .forwardBytes))
            let responseHandler = NIOUpgradeResponseHandler(
                requestHead: head, url: url, maxBodySize: options.maxResponseBodySize, encoder: encoder, decoder: decoder,
                report: { [self] event in report(event) }
            )
            try pipeline.addHandler(NIOInactiveDeferralHandler())
            try pipeline.addHandler(encoder)
            try pipeline.addHandler(decoder)
            try pipeline.addHandler(responseHandler)
        }
    }

    private func connected(_ result: Result<any Channel, any Error>) {
        switch result {
        case .success(let channel):
            let kept = state.withLockedValue { state -> Bool in
                switch state {
                case .connecting(let timer, _):
                    state = .connected(timer: timer, channel: channel, requestWritten: false)
                    return true
                case .connected:
                    return true
                case .finished(let handedOver):
                    // The connect, the request, the 101 and the hand-over can all happen on the event
                    // loop before this callback runs: the channel is then the caller's.
                    return handedOver.contains(ObjectIdentifier(channel))
                case .idle:
                    return false
                }
            }
            if !kept {
                channel.close(promise: nil)
            }
        case .failure(let error):
            finish(.failure(NIOUpgradeErrors.classify(error, url: url, requestWritten: false, response: nil)))
        }
    }

    private func timedOut() {
        let phase = state.withLockedValue { state -> RxHTTP.HTTPClientError.Phase? in
            switch state {
            case .idle, .connecting: .notSent
            case .connected(_, _, let requestWritten): requestWritten ? .sentWithoutResponse : .notSent
            case .finished: nil
            }
        }
        guard let phase else { return }
        let error = RxHTTP.HTTPClientError(
            .timedOut, message: phase == .notSent ? "the request was not sent within \(timeout) s" : "no answer within \(timeout) s",
            url: url, phase: phase
        )
        finish(.failure(error))
    }

    private func report(_ event: NIOUpgradeEvent) {
        switch event {
        case .requestWritten(let channel):
            // May come before the connect future's callback.
            state.withLockedValue { state in
                switch state {
                case .connecting(let timer, _), .connected(let timer, _, _):
                    state = .connected(timer: timer, channel: channel, requestWritten: true)
                case .idle, .finished:
                    break
                }
            }
        case .switched(let head, let connection):
            if !finish(.success(.switched(head, connection)), closing: false) {
                connection.close()
            }
        case .answered(let response):
            finish(.success(.answered(response)))
        case .failed(let error):
            finish(.failure(error))
        }
    }

    /// Ends the exchange once: cancels the timer, closes the channel (unless it now belongs to the
    /// caller), then delivers `result` (nothing when disposed). Returns whether this call ended it.
    @discardableResult
    private func finish(_ result: Result<HTTPUpgradeResult, any Error>?, closing: Bool = true) -> Bool {
        let ended = state.withLockedValue { state -> (timer: Scheduled<Void>?, channels: [any Channel])? in
            let ended: (timer: Scheduled<Void>?, channels: [any Channel])?
            switch state {
            case .idle: ended = (nil, [])
            case .connecting(let timer, let channels): ended = (timer, channels)
            case .connected(let timer, let channel, _): ended = (timer, [channel])
            case .finished: return nil
            }
            state = .finished(handedOver: closing ? [] : (ended?.channels ?? []).map { ObjectIdentifier($0) })
            return ended
        }
        guard let ended else { return false }
        ended.timer?.cancel()
        if closing {
            for channel in ended.channels {
                channel.close(promise: nil)
            }
        }
        if let result {
            completion(result)
        }
        return true
    }
}

/// The client errors of a protocol-switch request: NIO's and AsyncHTTPClient's mapping
/// (`AsyncHTTPClientErrors`), plus what only a bare NIO connection reports.
enum NIOUpgradeErrors {
    /// - Parameters:
    ///   - requestWritten: Whether the request was handed to the socket.
    ///   - response: The status and headers, once a head arrived.
    static func classify(
        _ error: any Error, url: URL?, requestWritten: Bool, response: (statusCode: Int, headers: RxHTTP.HTTPHeaders)?
    ) -> RxHTTP.HTTPClientError {
        if let error = error as? EventLoopError, case .shutdown = error {
            return RxHTTP.HTTPClientError(.shutdown, message: "the event loop group was shut down", url: url, underlying: error, phase: .notSent)
        }
        if let error = error as? ChannelError, case .connectTimeout = error {
            return RxHTTP.HTTPClientError(.timedOut, message: "no connection in time", url: url, underlying: error, phase: .notSent)
        }
        if let error = error as? HTTPParserError, case .invalidEOFState = error {
            let phase: RxHTTP.HTTPClientError.Phase = response != nil ? .responded : requestWritten ? .sentWithoutResponse : .notSent
            return RxHTTP.HTTPClientError(
                .transport, message: "the connection closed before the answer was complete", statusCode: response?.statusCode,
                url: url, underlying: error, headers: response?.headers, phase: phase
            )
        }
        if error is NIOSSLError || error is BoringSSLError {
            return RxHTTP.HTTPClientError(
                .transport, message: "the TLS handshake failed", url: url, underlying: error,
                phase: requestWritten ? .sentWithoutResponse : .notSent
            )
        }
        return AsyncHTTPClientErrors.classify(error, url: url, requestHeadSent: requestWritten, response: response)
    }
}
#endif
