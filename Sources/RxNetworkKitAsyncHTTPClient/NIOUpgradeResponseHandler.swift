// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
@_spi(TransportSupport) import RxHTTP

/// What `NIOUpgradeResponseHandler` reports of a protocol-switch request: the request went out,
/// then one ending.
enum NIOUpgradeEvent: Sendable {
    /// The request was handed to the socket of this channel (so it is connected): from now on the
    /// server may have seen it.
    case requestWritten(any Channel)
    /// 101: the pipeline no longer speaks HTTP and the connection carries raw bytes.
    case switched(RxHTTP.HTTPResponseHead, NIOUpgradedConnection)
    /// Another status, with its whole body (bounded); the channel is being closed.
    case answered(HTTPResponse)
    /// The exchange failed; the channel is being closed.
    case failed(RxHTTP.HTTPClientError)
}

/// Writes a protocol-switch request as given and reads the answer, behind NIO's
/// `HTTPRequestEncoder` and `HTTPResponseDecoder` (`leftOverBytesStrategy: .forwardBytes`).
///
/// On a 101 it hands the channel over: adds an `NIOUpgradedConnectionHandler` after itself, removes
/// the encoder and itself, then the decoder, which forwards the bytes it holds past the head (those
/// that came in the same read, and any read since) to the new handler as raw bytes; once the
/// decoder is gone it reports `.switched`. On another status it reads the body, bounded, and
/// reports `.answered`. It reports `.requestWritten` once the request is handed to the socket, and
/// one ending.
///
/// - Note: Lives on its channel's event loop.
final class NIOUpgradeResponseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    /// The head of a non-101 answer being read (its body is in `body`).
    private struct Answer {
        let statusCode: Int
        let headers: RxHTTP.HTTPHeaders
        let framing: ResponseFraming
    }

    private enum State {
        case awaitingHead
        case switching(RxHTTP.HTTPResponseHead)
        case answering(Answer)
        case reported
    }

    private let requestHead: HTTPRequestHead
    private let url: URL?
    private let maxBodySize: Int
    private let encoder: HTTPRequestEncoder
    private let decoder: ByteToMessageHandler<HTTPResponseDecoder>
    private let report: @Sendable (NIOUpgradeEvent) -> Void
    private var state = State.awaitingHead
    /// The body of the answer being read; outside `state` so that it grows in place.
    private var body = ByteBuffer()
    /// Whether the request was handed to the socket (and so may have reached the server).
    private var requestWritten = false

    init(
        requestHead: HTTPRequestHead, url: URL?, maxBodySize: Int, encoder: HTTPRequestEncoder,
        decoder: ByteToMessageHandler<HTTPResponseDecoder>, report: @escaping @Sendable (NIOUpgradeEvent) -> Void
    ) {
        self.requestHead = requestHead
        self.url = url
        self.maxBodySize = maxBodySize
        self.encoder = encoder
        self.decoder = decoder
        self.report = report
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(Self.wrapOutboundOut(.head(requestHead)), promise: nil)
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(Self.wrapOutboundOut(.end(nil)), promise: written)
        let channel = context.channel
        written.futureResult.assumeIsolated().whenSuccess {
            self.requestWritten = true
            self.report(.requestWritten(channel))
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (Self.unwrapInboundIn(data), state) {
        case (.head(let head), .awaitingHead):
            received(head, context: context)
        case (.body(var part), .answering(let answer)):
            guard body.readableBytes + part.readableBytes <= maxBodySize else {
                fail(tooLarge(answer.statusCode, answer.headers), context: context)
                return
            }
            body.writeBuffer(&part)
        case (.end, .switching(let head)):
            switchProtocols(head, context: context)
        case (.end, .answering(let answer)):
            do throws(RxHTTP.HTTPClientError) {
                try answer.framing.validate(
                    bodyCount: body.readableBytes, statusCode: answer.statusCode, headers: answer.headers, url: url
                )
            } catch {
                fail(error, context: context)
                return
            }
            state = .reported
            report(.answered(HTTPResponse(
                statusCode: answer.statusCode, headers: answer.headers, body: Data(body.readableBytesView), url: url
            )))
            body = ByteBuffer()
            context.close(promise: nil)
        case (_, .reported):
            break
        default:
            fail(RxHTTP.HTTPClientError(.invalidResponse, message: "the server's answer is out of order", url: url), context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(NIOUpgradeErrors.classify(error, url: url, requestWritten: requestWritten, response: response), context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The decoder delivered everything it could (a body read to the end of stream ends with
        // `.end` first): the connection closed before the answer was whole.
        if case .reported = state {} else {
            let phase: RxHTTP.HTTPClientError.Phase = response != nil ? .responded : requestWritten ? .sentWithoutResponse : .notSent
            let error = RxHTTP.HTTPClientError(
                .transport, message: "the connection closed before the answer was complete",
                statusCode: response?.statusCode, url: url, headers: response?.headers, phase: phase
            )
            fail(error, context: context)
        }
        context.fireChannelInactive()
    }

    /// The status and headers received, if any.
    private var response: (statusCode: Int, headers: RxHTTP.HTTPHeaders)? {
        switch state {
        case .answering(let answer): (answer.statusCode, answer.headers)
        case .switching(let head): (head.statusCode, head.headers)
        case .awaitingHead, .reported: nil
        }
    }

    private func received(_ head: NIOHTTP1.HTTPResponseHead, context: ChannelHandlerContext) {
        let statusCode = Int(head.status.code)
        let headers = RequestConversion.headers(head.headers)
        guard statusCode != 101 else {
            state = .switching(RxHTTP.HTTPResponseHead(statusCode: statusCode, headers: headers, url: url))
            return
        }
        let framing: ResponseFraming
        do throws(RxHTTP.HTTPClientError) {
            framing = try ResponseFraming.validate(headers: headers, statusCode: statusCode, method: requestHead.method.rawValue, url: url)
        } catch {
            fail(error, context: context)
            return
        }
        if let length = framing.contentLength, !framing.hasNoBody, length > Int64(maxBodySize) {
            fail(tooLarge(statusCode, headers), context: context)
            return
        }
        state = .answering(Answer(statusCode: statusCode, headers: headers, framing: framing))
    }

    /// Hands the channel over to an `NIOUpgradedConnection` (see the type's documentation).
    private func switchProtocols(_ head: RxHTTP.HTTPResponseHead, context: ChannelHandlerContext) {
        state = .reported
        let connection = NIOUpgradedConnection(channel: context.channel)
        let pipeline = context.pipeline.syncOperations
        do {
            try pipeline.addHandler(NIOUpgradedConnectionHandler(connection: connection), position: .after(self))
        } catch {
            report(.failed(NIOUpgradeErrors.classify(error, url: url, requestWritten: true, response: (head.statusCode, head.headers))))
            context.close(promise: nil)
            return
        }
        pipeline.removeHandler(encoder, promise: nil)
        pipeline.removeHandler(context: context, promise: nil)
        // The decoder's removal runs on a later tick: the bytes past the head reach the new handler
        // then, before `.switched` goes out (and before any write could pass the decoder).
        let report = report
        pipeline.removeHandler(decoder).assumeIsolated().whenComplete { _ in
            // Also when the channel closed meanwhile: the connection then reports what it got and
            // `.closed`.
            report(.switched(head, connection))
        }
    }

    private func fail(_ error: RxHTTP.HTTPClientError, context: ChannelHandlerContext) {
        if case .reported = state { return }
        state = .reported
        body = ByteBuffer()
        report(.failed(error))
        context.close(promise: nil)
    }

    private func tooLarge(_ statusCode: Int, _ headers: RxHTTP.HTTPHeaders) -> RxHTTP.HTTPClientError {
        RxHTTP.HTTPClientError(
            .responseTooLarge, message: "the response body passed the limit of \(maxBodySize) bytes",
            statusCode: statusCode, url: url, headers: headers, phase: .responded
        )
    }
}

/// Holds back the end of the channel by one event-loop tick, placed before the HTTP decoder: a
/// decoder being removed after a 101 forwards the bytes it holds only if it has not seen the end
/// of stream, and its removal also waits one tick. Without this, a server that sends its first
/// bytes with the 101 and closes at once would lose them.
final class NIOInactiveDeferralHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func channelInactive(context: ChannelHandlerContext) {
        context.eventLoop.assumeIsolated().execute {
            context.fireChannelInactive()
        }
    }
}
#endif
