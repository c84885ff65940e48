// Compiled with the package trait `AsyncHTTPClient` only: without it the module is empty and the
// package depends on nothing.
#if AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import RxCore
import RxHTTP

/// The connection of `AsyncHTTPClientTransport` after a 101 answer: a NIO channel whose pipeline
/// no longer speaks HTTP (TLS, if any, stays), read by `NIOUpgradedConnectionHandler`.
///
/// Events are kept until `start(_:)` and then delivered on the channel's event loop, in order, one
/// at a time: bytes, then exactly one `.closed`. A connection dropped without `close()` closes its
/// channel (the pipeline holds it weakly).
///
/// - Note: Thread-safe. `receive` and write completions run on the channel's event loop.
final class NIOUpgradedConnection: UpgradedConnection {
    private enum Delivery {
        /// Before `start(_:)`: what arrived, in order.
        case buffering
        case delivering(@Sendable (UpgradedConnectionEvent) -> Void)
        /// `.closed` went out (or was buffered and the connection started): nothing follows.
        case over
    }

    private struct State {
        var delivery = Delivery.buffering
        var buffered: [UpgradedConnectionEvent] = []
        var isStarted = false
        /// `close()` was called: later bytes are dropped and the final `.closed` carries no error.
        var isClosing = false
    }

    private let channel: Channel
    private let state = NIOLockedValueBox(State())

    init(channel: Channel) {
        self.channel = channel
        Resources.incrementTotal()
    }

    deinit {
        channel.close(promise: nil)
        Resources.decrementTotal()
    }

    func start(_ receive: @escaping @Sendable (UpgradedConnectionEvent) -> Void) {
        let isFirst = state.withLockedValue { state in
            defer { state.isStarted = true }
            return !state.isStarted
        }
        guard isFirst else { return }
        // On the event loop, where events arrive: the buffered ones go out before any later one,
        // and never from inside the caller's own stack.
        channel.eventLoop.execute { [self] in
            let backlog = state.withLockedValue { state -> [UpgradedConnectionEvent] in
                var backlog = state.buffered
                state.buffered = []
                if state.isClosing {
                    // Closed before it started: nothing but the final `.closed`, if it came.
                    backlog = backlog.contains(where: Self.isClosed) ? [.closed(nil)] : []
                }
                state.delivery = backlog.contains(where: Self.isClosed) ? .over : .delivering(receive)
                return backlog
            }
            for event in backlog {
                receive(event)
            }
        }
    }

    func write(_ data: Data, completion: @escaping @Sendable ((any Error)?) -> Void) {
        let isClosing = state.withLockedValue { $0.isClosing }
        guard !isClosing else {
            channel.eventLoop.execute { completion(Self.closedError(underlying: nil)) }
            return
        }
        channel.writeAndFlush(channel.allocator.buffer(bytes: data)).whenComplete { result in
            switch result {
            case .success:
                completion(nil)
            case .failure(let error):
                completion(Self.closedError(underlying: error))
            }
        }
    }

    func close() {
        let wasClosing = state.withLockedValue { state in
            defer { state.isClosing = true }
            return state.isClosing
        }
        guard !wasClosing else { return }
        // Deferred even on the event loop: closing fires `.closed`, which must not reach `receive`
        // from inside a `receive` that called `close()`.
        channel.eventLoop.execute { [channel] in channel.close(promise: nil) }
    }

    /// An event from the channel (its event loop): delivered, or kept until `start(_:)`.
    func received(_ event: UpgradedConnectionEvent) {
        let delivery = state.withLockedValue { state -> (@Sendable (UpgradedConnectionEvent) -> Void, UpgradedConnectionEvent)? in
            var event = event
            switch event {
            case .bytes:
                guard !state.isClosing else { return nil }
            case .closed:
                if state.isClosing { event = .closed(nil) }
            }
            switch state.delivery {
            case .buffering:
                state.buffered.append(event)
                return nil
            case .delivering(let receive):
                if case .closed = event { state.delivery = .over }
                return (receive, event)
            case .over:
                return nil
            }
        }
        guard let (receive, event) = delivery else { return }
        receive(event)
    }

    private static func isClosed(_ event: UpgradedConnectionEvent) -> Bool {
        if case .closed = event { return true }
        return false
    }

    private static func closedError(underlying: (any Error)?) -> RxHTTP.HTTPClientError {
        RxHTTP.HTTPClientError(.transport, message: "the connection is closed", underlying: underlying, phase: .sentWithoutResponse)
    }
}

/// The last handler of an upgraded connection's pipeline: hands every read to the connection as
/// bytes and, when the channel closes, one `.closed` with the first error seen (nil for a clean
/// end of stream).
final class NIOUpgradedConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private weak var connection: NIOUpgradedConnection?
    private var error: RxHTTP.HTTPClientError?
    private var isClosed = false

    init(connection: NIOUpgradedConnection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard !isClosed, let bytes = buffer.readData(length: buffer.readableBytes, byteTransferStrategy: .noCopy), !bytes.isEmpty else { return }
        // The read is shared with the buffer's storage, not copied (`.automatic` copies anything up
        // to 256 KiB): the frame parser copies each payload out of it once, during this call, and
        // keeps nothing of it after — so NIO may reuse the buffer for the next read.
        connection?.received(.bytes(bytes))
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Reported with `.closed`, after any bytes still on their way in.
        if self.error == nil {
            self.error = RxHTTP.HTTPClientError(
                .transport, message: "the upgraded connection failed", underlying: error, phase: .sentWithoutResponse
            )
        }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end()
    }

    private func end() {
        guard !isClosed else { return }
        isClosed = true
        connection?.received(.closed(error))
    }
}
#endif
